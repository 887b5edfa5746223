import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_LIMITS, dueWindowMs, type PlanInput, planFires } from '../../../lib/core/planning';
import { periodicSource } from '../../support/fire-time-sources';

const T0 = Date.parse('2026-01-01T09:00:00Z');
const SECOND = 1_000;
const DUE_AHEAD = { ...DEFAULT_PLAN_LIMITS, dueAheadMs: 45 * SECOND };

/** A schedule firing every 5 s from T0, planned at T0 with a lookahead of 90 s and a due-ahead of 45 s. */
function plan(overrides: Partial<PlanInput>) {
  return planFires({
    scheduleId: 'every-5s',
    source: periodicSource(T0, 5 * SECOND),
    nextFireAt: T0 + 50 * SECOND,
    policies: { coalesce: 'all', misfireGraceSeconds: null, maxJitterSeconds: 0 },
    limits: DUE_AHEAD,
    now: T0,
    random: () => 0.5,
    ...overrides,
  });
}

describe('due-ahead: a schedule moved on once per span of fires, not once per fire', () => {
  it('sends nothing while the next fire is inside the lookahead but beyond the due-ahead, and keeps it', () => {
    const result = plan({});

    expect(result.fires).toEqual([]);
    expect(result.nextFireAt).toBe(T0 + 50 * SECOND);
  });

  it('sends every fire up to the lookahead once the next fire is within the due-ahead', () => {
    const result = plan({ nextFireAt: T0 + 45 * SECOND });

    expect(result.fires.map((fire) => (fire.fireTime ?? 0) - T0)).toEqual(
      [45, 50, 55, 60, 65, 70, 75, 80, 85, 90].map((seconds) => seconds * SECOND),
    );
    expect(result.nextFireAt).toBe(T0 + 95 * SECOND);
  });

  it('reads the schedules due within the due-ahead, or the early-send window when longer', () => {
    expect(dueWindowMs(DUE_AHEAD)).toBe(45 * SECOND);
    expect(dueWindowMs(DEFAULT_PLAN_LIMITS)).toBe(90 * SECOND);
    expect(dueWindowMs({ ...DUE_AHEAD, earlySendMs: 900 * SECOND })).toBe(900 * SECOND);
  });

  it('sends a missed fire at once, whatever the due-ahead', () => {
    const result = plan({ nextFireAt: T0 - 5 * SECOND });

    expect(result.fires[0]?.fireTime).toBe(T0 - 5 * SECOND);
  });
});
