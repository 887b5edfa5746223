import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PLAN_LIMITS,
  type FirePolicies,
  type PlanInput,
  planFires,
} from '../../../lib/core/planning';
import { listSource, periodicSource } from '../../support/fire-time-sources';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const SECOND = 1_000;
const noJitter: FirePolicies = { coalesce: 'latest', misfireGraceSeconds: null, maxJitterSeconds: 0 };

function plan(overrides: Partial<PlanInput>) {
  return planFires({
    scheduleId: 'nightly',
    source: periodicSource(T0, 30 * SECOND),
    nextFireAt: T0,
    policies: noJitter,
    limits: DEFAULT_PLAN_LIMITS,
    now: T0,
    random: () => 0.5,
    ...overrides,
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('planFires', () => {
  it('dispatches every fire time inside the lookahead window and resumes after it', () => {
    const result = plan({ now: T0 - 10 * SECOND });

    expect(result.fires.map((fire) => iso(fire.fireTime))).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
    expect(iso(result.nextFireAt ?? 0)).toBe('2026-01-01T00:01:30.000Z');
    expect(iso(result.lastFireAt ?? 0)).toBe('2026-01-01T00:01:00.000Z');
    expect(result.coalesced).toBe(false);
  });

  it('gives each fire the deterministic job id <scheduleId>@<fireTime>', () => {
    const result = plan({ now: T0 });

    expect(result.fires[0]?.jobId).toBe(`nightly@${T0}`);
  });

  it('keeps only the latest missed fire time with coalesce latest', () => {
    const result = plan({ now: T0 + 5 * 60 * SECOND + 10 * SECOND });

    expect(result.fires.map((fire) => iso(fire.fireTime))).toEqual([
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:05:30.000Z',
      '2026-01-01T00:06:00.000Z',
      '2026-01-01T00:06:30.000Z',
    ]);
    expect(result.coalesced).toBe(true);
  });

  it('keeps only the earliest missed fire time with coalesce earliest', () => {
    const result = plan({
      now: T0 + 5 * 60 * SECOND + 10 * SECOND,
      policies: { ...noJitter, coalesce: 'earliest' },
    });

    expect(result.fires.map((fire) => iso(fire.fireTime))).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:05:30.000Z',
      '2026-01-01T00:06:00.000Z',
      '2026-01-01T00:06:30.000Z',
    ]);
  });

  it('dispatches every missed fire time with coalesce all, at most maxFiresPerPlan per plan', () => {
    const now = T0 + 60 * 60 * SECOND;
    const first = plan({
      now,
      policies: { ...noJitter, coalesce: 'all' },
      limits: { lookaheadMs: 0, maxFiresPerPlan: 100 },
    });

    expect(first.fires).toHaveLength(100);
    expect(first.nextFireAt).toBe(T0 + 100 * 30 * SECOND);

    const second = plan({
      now,
      nextFireAt: first.nextFireAt ?? 0,
      policies: { ...noJitter, coalesce: 'all' },
      limits: { lookaheadMs: 0, maxFiresPerPlan: 100 },
    });
    expect(second.fires[0]?.fireTime).toBe(T0 + 100 * 30 * SECOND);
    expect(second.fires.at(-1)?.fireTime).toBe(now);
    expect(second.fires).toHaveLength(21);
  });

  it('finds the latest missed fire of a per-second schedule after a week-long outage', () => {
    const now = T0 + 7 * 24 * 3600 * SECOND + 500;
    const result = plan({
      source: periodicSource(T0, SECOND),
      now,
      limits: { lookaheadMs: 0, maxFiresPerPlan: 1_000 },
    });

    expect(result.fires.map((fire) => fire.fireTime)).toEqual([now - 500]);
    expect(result.nextFireAt).toBe(now + 500);
  });

  it('sets the start deadline to the start time plus the misfire grace', () => {
    const result = plan({ now: T0 - 10 * SECOND, policies: { ...noJitter, misfireGraceSeconds: 15 } });

    expect(result.fires[0]?.startDeadline).toBe(T0 + 15 * SECOND);
  });

  it('has no start deadline without a misfire grace', () => {
    expect(plan({ now: T0 }).fires[0]?.startDeadline).toBeNull();
  });

  it('never jitters a fire onto or past the next fire time', () => {
    const result = plan({
      source: listSource([T0, T0 + 2 * SECOND, T0 + 60 * SECOND]),
      now: T0 - SECOND,
      policies: { ...noJitter, maxJitterSeconds: 30 },
      random: () => 0.999999,
    });

    const [first, second, third] = result.fires;
    expect(first?.runAt).toBeLessThan(T0 + 2 * SECOND);
    expect(second?.runAt).toBe(T0 + 2 * SECOND + Math.floor(0.999999 * 30 * SECOND));
    expect(third?.runAt).toBeGreaterThanOrEqual(T0 + 60 * SECOND);
  });

  it('reports the schedule finished when the trigger has no fire time left', () => {
    const result = plan({ source: listSource([T0]), now: T0 - SECOND });

    expect(result.fires.map((fire) => fire.fireTime)).toEqual([T0]);
    expect(result.nextFireAt).toBeNull();
  });

  it('dispatches nothing and keeps the next fire time when it is beyond the window', () => {
    const result = plan({ now: T0 - 10 * 60 * SECOND });

    expect(result.fires).toEqual([]);
    expect(result.nextFireAt).toBe(T0);
    expect(result.lastFireAt).toBeNull();
  });
});
