import { describe, expect, it } from 'vitest';
import { checkBacklog } from '../../bench/soak/backlog-check';

/**
 * A task limited to 1: job `a` runs 0–1,000 ms and its result is written at 1,400 ms; job `b` joined
 * the line at 500 ms and starts at `bStartsAt`. Ticks run every second (each 100 ms long). The slot is
 * back in the counter at 1,400 ms, so the first tick that sees it starts at 2,000 ms and ends at
 * 2,100 ms; the fallback is due 500 ms later, at 2,600 ms.
 */
function backlogOf(bStartsAt: number, extra: Partial<Parameters<typeof checkBacklog>[0]> = {}) {
  return checkBacklog({
    task: 't',
    limit: 1,
    spans: [
      { jobId: 'a', from: 0, to: 1_000 },
      { jobId: 'b', from: bStartsAt, to: bStartsAt + 100 },
    ],
    deadHolds: [],
    joins: new Map([['b', [500]]]),
    wakes: new Map(),
    claimAnswers: new Map(),
    runEnds: new Map([['a', [1_400]]]),
    claimedBefore: () => undefined,
    isOfTask: () => true,
    ticks: Array.from({ length: 20 }, (_, n): [number, number] => [n * 1_000, n * 1_000 + 100]),
    bursts: [],
    until: 20_000,
    ...extra,
  });
}

describe('checkBacklog: no job waits with a slot free and nobody woken for it past the fallback', () => {
  it('passes a job that starts before the first tick after the result write has woken it', () => {
    const verdict = backlogOf(2_500);

    expect(verdict.violations).toEqual([]);
    expect(verdict).toMatchObject({ waited: 1, longestFreeMs: 1_100, leastSlackMs: 100 });
  });

  it('flags a job that still waits with the slot free after that tick', () => {
    const verdict = backlogOf(4_000);

    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('b waited 2600 ms');
  });

  it('counts a woken job on its way to its claim as taking the slot', () => {
    const verdict = backlogOf(4_000, {
      wakes: new Map([['b', [1_200]]]),
      claimAnswers: new Map([['b', [3_990]]]),
    });

    expect(verdict.violations).toEqual([]);
  });

  it('counts the slot a dead invocation keeps until its lease ends, then wants the fallback', () => {
    // `a`'s process died at 1,000 ms: no result written; its lease ends at 3,000 ms (tick 3,000–3,100)
    const dead = { deadHolds: [{ task: 't', jobId: 'a', from: 1_000, to: 3_000 }], runEnds: new Map() };

    expect(backlogOf(3_500, dead).violations).toEqual([]);
    expect(backlogOf(4_000, dead).violations).toHaveLength(1);
  });

  it('counts a slot as taken from its run’s claim, before the handler starts', () => {
    // `b`, woken at 1,200 ms, was claimed at 3,000 ms and its handler started at 4,000 ms
    const claimed = {
      wakes: new Map([['b', [1_200]]]),
      claimAnswers: new Map([['b', [3_000]]]),
      claimedBefore: (jobId: string) => (jobId === 'b' ? 3_000 : undefined),
    };

    expect(backlogOf(4_000, claimed).violations).toEqual([]);
    expect(backlogOf(4_000, { ...claimed, claimedBefore: () => undefined }).violations).toHaveLength(1);
  });

  it('counts a free stretch that overlaps a throttling burst from the burst’s end', () => {
    expect(backlogOf(3_500).violations).toHaveLength(1);
    expect(backlogOf(3_500, { bursts: [[1_500, 2_100]] }).violations).toEqual([]);
  });

  it('checks only the jobs of the task, and only while they wait in its line', () => {
    expect(backlogOf(9_000, { isOfTask: (jobId) => jobId !== 'b' }).violations).toEqual([]);
    expect(backlogOf(9_000, { joins: new Map() }).violations).toEqual([]);
  });
});
