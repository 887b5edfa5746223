import type { FirePlan } from './plan-fires';

/**
 * Cuts a plan to the fires a schedule with `maxRuns` has left (`maxRuns - runs`): when the plan
 * reaches the limit, the cut plan has no next fire time, so the schedule finishes when it is released.
 * `maxRuns` null: the plan as it is.
 */
export function capAtMaxRuns(plan: FirePlan, runs: number, maxRuns: number | null): FirePlan {
  if (maxRuns === null) return plan;
  const left = Math.max(0, maxRuns - runs);
  if (plan.fires.length < left) return plan;
  const fires = plan.fires.slice(0, left);
  return { ...plan, fires, nextFireAt: null, lastFireAt: fires.at(-1)?.fireTime ?? null };
}
