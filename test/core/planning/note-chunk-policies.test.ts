import { describe, expect, it } from 'vitest';
import type { FirePolicies } from '../../../lib/core/planning';
import {
  DEFAULT_NOTE_GRID,
  type NoteChunkInput,
  planNoteChunk,
} from '../../../lib/core/planning/note-chunks';
import { listSource, periodicSource } from '../../support/fire-time-sources';

/** A chunk boundary (a multiple of the 120 s grid). */
const T0 = Date.parse('2026-01-01T10:00:00Z');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const noJitter: FirePolicies = { coalesce: 'latest', misfireGraceSeconds: null, maxJitterSeconds: 0 };

function plan(overrides: Partial<NoteChunkInput>) {
  return planNoteChunk({
    scheduleId: 'nightly',
    source: periodicSource(T0, 30 * SECOND),
    nextFireAt: T0,
    policies: noJitter,
    grid: DEFAULT_NOTE_GRID,
    maxFires: 1_000,
    now: T0 - 3 * MINUTE,
    random: () => 0.5,
    ...overrides,
  });
}
const times = (fires: { fireTime: number }[]) => fires.map((fire) => (fire.fireTime - T0) / SECOND);

/** What each fire of a note's plan runs with: its policies, its job id, and where the chain ends. */
describe('a note plan’s fires (ADR 0007, 0008)', () => {
  it('gives each fire the deterministic job id <scheduleId>@<fireTime>', () => {
    expect(plan({}).fires[0]?.jobId).toBe(`nightly@${T0}`);
  });

  it('keeps only the latest missed fire time with coalesce latest, then goes on to a chunk it can place', () => {
    const result = plan({ now: T0 + 5 * MINUTE + 10 * SECOND });

    expect(times(result.fires).slice(0, 3)).toEqual([300, 330, 360]);
    expect(result.coalesced).toBe(true);
  });

  it('keeps only the earliest missed fire time with coalesce earliest', () => {
    const result = plan({
      now: T0 + 5 * MINUTE + 10 * SECOND,
      policies: { ...noJitter, coalesce: 'earliest' },
    });

    expect(times(result.fires).slice(0, 3)).toEqual([0, 330, 360]);
    expect(result.coalesced).toBe(true);
  });

  it('sends every missed fire time with coalesce all, at most maxFires per plan, the rest by its successor', () => {
    const now = T0 + 60 * MINUTE;
    const first = plan({ now, policies: { ...noJitter, coalesce: 'all' }, maxFires: 100 });

    expect(first.fires).toHaveLength(100);
    expect(first.successor?.nextFireAt).toBe(T0 + 100 * 30 * SECOND);

    const second = plan({
      now,
      nextFireAt: first.successor?.nextFireAt ?? 0,
      policies: { ...noJitter, coalesce: 'all' },
      maxFires: 100,
    });
    expect(second.fires[0]?.fireTime).toBe(T0 + 100 * 30 * SECOND);
    expect(second.fires.some((fire) => fire.fireTime === now)).toBe(true);
  });

  it('finds the latest missed fire of a per-second schedule after a week-long outage', () => {
    const now = T0 + 7 * 24 * 60 * MINUTE + 500;

    const result = plan({ source: periodicSource(T0, SECOND), now });

    expect(result.fires[0]?.fireTime).toBe(now - 500);
    expect(result.fires[1]?.fireTime).toBe(now + 500);
  });

  it('sets the start deadline to the run time plus the misfire grace, and none without a grace', () => {
    expect(plan({ policies: { ...noJitter, misfireGraceSeconds: 15 } }).fires[0]?.startDeadline).toBe(
      T0 + 15 * SECOND,
    );
    expect(plan({}).fires[0]?.startDeadline).toBeNull();
  });

  it('never jitters a fire onto or past the next fire time', () => {
    const result = plan({
      source: listSource([T0, T0 + 2 * SECOND, T0 + 60 * SECOND]),
      policies: { ...noJitter, maxJitterSeconds: 30 },
      random: () => 0.999999,
    });

    const [first, second, third] = result.fires;
    expect(first?.runAt).toBeLessThan(T0 + 2 * SECOND);
    expect(second?.runAt).toBe(T0 + 2 * SECOND + Math.floor(0.999999 * 30 * SECOND));
    expect(third?.runAt).toBeGreaterThanOrEqual(T0 + 60 * SECOND);
  });

  it('ends the chain when the trigger has no fire time left', () => {
    const result = plan({ source: listSource([T0]) });

    expect(times(result.fires)).toEqual([0]);
    expect(result.successor).toBeNull();
  });

  it('ends the chain when its runs are used up, whatever the trigger still has (max_runs)', () => {
    const capped = plan({ runsLeft: 3 });
    const spent = plan({ runsLeft: 0 });
    const overSpent = plan({ runsLeft: -2 });
    const roomy = plan({ runsLeft: 50 });

    expect([times(capped.fires), capped.successor]).toEqual([[0, 30, 60], null]);
    expect([spent.fires, spent.successor]).toEqual([[], null]);
    expect([overSpent.fires, overSpent.successor]).toEqual([[], null]);
    expect(times(roomy.fires)).toEqual([0, 30, 60, 90]);
    expect(roomy.successor?.nextFireAt).toBe(T0 + 2 * MINUTE);
  });

  it('sends no fire past the one its chain ended at, and leaves no successor (a finished schedule read again)', () => {
    const result = plan({ endsAt: T0 + 60 * SECOND });

    expect(times(result.fires)).toEqual([0, 30, 60]);
    expect(result.successor).toBeNull();
  });
});
