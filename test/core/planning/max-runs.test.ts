import { describe, expect, it } from 'vitest';
import { capAtMaxRuns, DEFAULT_PLAN_LIMITS, planFires } from '../../../lib/core/planning';
import { periodicSource } from '../../support/fire-time-sources';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const SECOND = 1_000;

/** Every 30 s from T0, planned at T0: fires at T0, +30 s, +60 s, +90 s; next +120 s. */
const plan = planFires({
  scheduleId: 's',
  source: periodicSource(T0, 30 * SECOND),
  nextFireAt: T0,
  policies: { coalesce: 'latest', misfireGraceSeconds: null, maxJitterSeconds: 0 },
  limits: DEFAULT_PLAN_LIMITS,
  now: T0,
  random: () => 0.5,
});

describe('capAtMaxRuns', () => {
  it('leaves the plan alone without a limit, or when the limit lies beyond it', () => {
    expect(capAtMaxRuns(plan, 7, null)).toEqual(plan);
    expect(capAtMaxRuns(plan, 0, 5)).toEqual(plan);
  });

  it('keeps the fires left and finishes the plan when it reaches the limit', () => {
    const capped = capAtMaxRuns(plan, 3, 5);

    expect(capped.fires.map((fire) => fire.fireTime)).toEqual([T0, T0 + 30 * SECOND]);
    expect(capped.nextFireAt).toBeNull();
    expect(capped.lastFireAt).toBe(T0 + 30 * SECOND);
  });

  it('finishes the plan when exactly the fires left are planned', () => {
    const capped = capAtMaxRuns(plan, 1, 5);

    expect(capped.fires).toHaveLength(4);
    expect(capped.nextFireAt).toBeNull();
  });

  it('plans nothing and finishes a schedule at or past its limit (lowered meanwhile)', () => {
    for (const runs of [5, 9]) {
      const capped = capAtMaxRuns(plan, runs, 5);
      expect(capped.fires).toEqual([]);
      expect(capped.nextFireAt).toBeNull();
      expect(capped.lastFireAt).toBeNull();
    }
  });
});
