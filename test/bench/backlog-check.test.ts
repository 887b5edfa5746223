import { describe, expect, it } from 'vitest';
import { checkBacklog } from '../../bench/soak/backlog-check';

/**
 * A task limited to 1: job `a` runs 0–1,000 ms; job `b` joined its line at 500 ms and starts at
 * `bStartsAt`. Ticks run every second (each 100 ms long). The slot is free from 1,000 ms: the result
 * write may take up to 1 s, so the first tick that counts starts at 2,000 ms and ends at 2,100 ms; the
 * fallback is due 500 ms later, at 2,600 ms.
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
    expect(verdict).toMatchObject({ waited: 1, longestFreeMs: 1_500, leastSlackMs: 100 });
  });

  it('flags a job that still waits with the slot free after that tick', () => {
    const verdict = backlogOf(4_000);

    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('b waited 3000 ms');
  });

  it('counts a woken job on its way to its claim as taking the slot', () => {
    const verdict = backlogOf(4_000, {
      wakes: new Map([['b', [1_200]]]),
      claimAnswers: new Map([['b', [3_990]]]),
    });

    expect(verdict.violations).toEqual([]);
  });

  it('counts the slot a dead invocation keeps until its lease ends, then wants the fallback', () => {
    const held = { task: 't', jobId: 'a', from: 1_000, to: 3_000 };

    expect(backlogOf(4_500, { deadHolds: [held] }).violations).toEqual([]);
    expect(backlogOf(5_000, { deadHolds: [held] }).violations).toHaveLength(1);
  });

  it('counts a free stretch that overlaps a throttling burst from the burst’s end', () => {
    expect(backlogOf(3_500).violations).toHaveLength(1);
    expect(backlogOf(3_500, { bursts: [[1_500, 2_000]] }).violations).toEqual([]);
  });

  it('checks only the jobs of the task, and only while they wait in its line', () => {
    expect(backlogOf(9_000, { isOfTask: (jobId) => jobId !== 'b' }).violations).toEqual([]);
    expect(backlogOf(9_000, { joins: new Map() }).violations).toEqual([]);
  });
});
