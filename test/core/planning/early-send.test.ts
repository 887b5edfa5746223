import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_LIMITS, dueWindowMs, type PlanInput, planFires } from '../../../lib/core/planning';
import { listSource, periodicSource } from '../../support/fire-time-sources';

const T0 = Date.parse('2026-01-01T09:00:00Z');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const EARLY = { ...DEFAULT_PLAN_LIMITS, earlySendMs: 900 * SECOND };

function plan(overrides: Partial<PlanInput>) {
  return planFires({
    scheduleId: 'daily-9am',
    source: periodicSource(T0, 24 * 60 * MINUTE),
    nextFireAt: T0,
    policies: { coalesce: 'latest', misfireGraceSeconds: null, maxJitterSeconds: 0 },
    limits: EARLY,
    now: T0 - 14 * MINUTE,
    random: () => 0.5,
    ...overrides,
  });
}

describe('early send of a next fire beyond the lookahead (ADR 0006)', () => {
  it('dispatches the next fire alone when it lies inside the early-send window, and resumes at the one after', () => {
    const result = plan({});

    expect(result.fires.map((fire) => fire.fireTime)).toEqual([T0]);
    expect(result.nextFireAt).toBe(T0 + 24 * 60 * MINUTE);
    expect(result.lastFireAt).toBe(T0);
  });

  it('dispatches nothing for a next fire beyond the early-send window, or with the window off', () => {
    expect(plan({ now: T0 - 16 * MINUTE }).fires).toEqual([]);
    expect(plan({ limits: DEFAULT_PLAN_LIMITS }).fires).toEqual([]);
    expect(plan({ now: T0 - 16 * MINUTE }).nextFireAt).toBe(T0);
  });

  it('sends a frequent schedule only its lookahead, as without the window (its next fire is always near)', () => {
    const everyFiveSeconds = periodicSource(T0, 5 * SECOND);

    const result = plan({ source: everyFiveSeconds, now: T0 - 10 * SECOND });

    expect(result.fires).toHaveLength(1 + 80 / 5);
    expect(result.nextFireAt).toBe(T0 + 85 * SECOND);
  });

  it('leaves a schedule firing more often than the window to the lookahead: it is never sent early', () => {
    const everyFiveMinutes = periodicSource(T0, 5 * MINUTE);

    const result = plan({ source: everyFiveMinutes, now: T0 - 10 * MINUTE });

    expect(result.fires).toEqual([]);
    expect(result.nextFireAt).toBe(T0);
  });

  it('sends a last fire early (no following fire), and a fire whose follower is just beyond the window', () => {
    const once = listSource([T0]);
    const sparse = listSource([T0, T0 + 900 * SECOND + 1]);

    expect(plan({ source: once }).fires.map((fire) => fire.fireTime)).toEqual([T0]);
    expect(plan({ source: once }).nextFireAt).toBeNull();
    expect(plan({ source: sparse }).fires.map((fire) => fire.fireTime)).toEqual([T0]);
    expect(plan({ source: listSource([T0, T0 + 900 * SECOND]) }).fires).toEqual([]);
  });

  it('leaves the schedule where a second plan at the same instant sends nothing more', () => {
    const first = plan({});
    const again = plan({ nextFireAt: first.nextFireAt ?? 0 });

    expect(again.fires).toEqual([]);
  });

  it('reads as far ahead as the longer of the lookahead and the window', () => {
    expect(dueWindowMs(EARLY)).toBe(900 * SECOND);
    expect(dueWindowMs(DEFAULT_PLAN_LIMITS)).toBe(90 * SECOND);
    expect(dueWindowMs({ ...DEFAULT_PLAN_LIMITS, earlySendMs: 30 * SECOND })).toBe(90 * SECOND);
  });
});
