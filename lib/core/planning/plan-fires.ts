import type { EpochMs } from '../clock';
import type { FireTimeSource } from '../triggers';
import { missedFireTimes, type PlannedFire, plannedFires } from './fire-choices';
import type { FirePolicies, PlanLimits } from './policies';

export type { PlannedFire } from './fire-choices';

export interface FirePlan {
  fires: PlannedFire[];
  /** The first fire time not dispatched by this plan; null when the trigger has finished. */
  nextFireAt: EpochMs | null;
  /** The latest fire time dispatched by this plan; null when it dispatched none. */
  lastFireAt: EpochMs | null;
  /** True when fire times were dropped by the coalesce policy. */
  coalesced: boolean;
}

export interface PlanInput {
  scheduleId: string;
  source: FireTimeSource;
  /** The first fire time not yet dispatched, as stored on the schedule. */
  nextFireAt: EpochMs;
  policies: FirePolicies;
  limits: PlanLimits;
  now: EpochMs;
  /** Uniform in [0, 1): the jitter's randomness, injected so plans are reproducible in tests. */
  random: () => number;
}

/**
 * Decides which fire times of a due schedule to dispatch now, and where the schedule resumes.
 *
 * Fire times at or before `now` were missed (an outage, a crashed tick): the coalesce policy keeps
 * the `earliest`, the `latest`, or `all` of them. Fire times after `now` and up to
 * `now + lookaheadMs` are all dispatched, to start at their own time, once the next one is within
 * `now + dueAheadMs` (the lookahead when absent). A next fire time beyond the lookahead but
 * within `now + earlySendMs`, whose following fire is further than `earlySendMs` from it, is dispatched
 * alone (the herd's early send). The rest waits for a later plan.
 *
 * @example
 * const plan = planFires({
 *   scheduleId: 'nightly',
 *   source: compileTrigger({ type: 'interval', seconds: 30, start_at: '2026-01-01T00:00:00Z' }),
 *   nextFireAt: Date.parse('2026-01-01T00:00:00Z'),
 *   policies: { coalesce: 'latest', misfireGraceSeconds: 60, maxJitterSeconds: 0 },
 *   limits: DEFAULT_PLAN_LIMITS,
 *   now: Date.parse('2026-01-01T00:05:10Z'),
 *   random: Math.random,
 * });
 * // plan.fires: 00:05:00 (the latest missed), 00:05:30, 00:06:00, 00:06:30 (inside the 90 s lookahead)
 * // plan.nextFireAt: 00:07:00
 */
export function planFires(input: PlanInput): FirePlan {
  const { source, now, limits } = input;
  const horizon = planHorizon(input);
  const fireTimes: EpochMs[] = [];
  let resumeFrom = input.nextFireAt;
  let coalesced = false;

  if (input.nextFireAt <= now) {
    const missed = missedFireTimes(
      source,
      input.nextFireAt,
      now,
      input.policies.coalesce,
      limits.maxFiresPerPlan,
    );
    fireTimes.push(...missed.fireTimes);
    resumeFrom = missed.resumeFrom;
    coalesced = missed.coalesced;
  }

  let candidate: EpochMs | undefined = source.next(resumeFrom);
  while (candidate !== undefined && candidate <= horizon && fireTimes.length < limits.maxFiresPerPlan) {
    fireTimes.push(candidate);
    candidate = source.next(candidate + 1);
  }

  const fires = plannedFires(input, fireTimes, candidate);
  return {
    fires,
    nextFireAt: candidate ?? null,
    lastFireAt: fireTimes.at(-1) ?? null,
    coalesced,
  };
}

/**
 * The last instant a plan dispatches: `now + lookahead`; or, for a next fire beyond that but inside the
 * early-send window whose following fire is further than the window from it (an isolated fire: hourly,
 * daily, a date), that fire itself, and no other (ADR 0006). The test looks at the fire sequence only,
 * never at `now`: the plan stays a prefix of the fire sequence from the stored next fire time, no shorter
 * than the plan of an earlier `now` (what the lease-less tick rests on, ADR 0005), and the schedule it
 * leaves is not due again in the same window (a tick reading round after round sends it once). A next
 * fire inside the lookahead but beyond `dueAheadMs` is not due yet: the plan sends nothing (just before
 * it), so a frequent schedule is moved on once per `lookahead − dueAhead`, not once per fire.
 */
function planHorizon(input: PlanInput): EpochMs {
  const { now, limits, nextFireAt, source } = input;
  const horizon = now + limits.lookaheadMs;
  if (nextFireAt <= horizon && nextFireAt > now + (limits.dueAheadMs ?? limits.lookaheadMs)) {
    return nextFireAt - 1;
  }
  const window = limits.earlySendMs ?? 0;
  if (nextFireAt <= horizon || nextFireAt > now + window) return horizon;
  const following = source.next(nextFireAt + 1);
  const isolated = following === undefined || following > nextFireAt + window;
  return isolated ? nextFireAt : horizon;
}
