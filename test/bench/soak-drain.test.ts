import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tickRunsLine } from '../../bench/soak/report';
import { waitWhileProgressing } from '../../bench/support/pollers';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

/** Runs the wait to its end on the fake clock, with `step` called every 200 ms of it. */
async function drain(input: {
  done: () => boolean;
  progress: () => number;
  step?: (elapsedMs: number) => void;
  stallMs: number;
  maxMs: number;
}) {
  let end: string | undefined;
  const waiting = waitWhileProgressing(input.done, input.progress, input).then((value) => {
    end = value;
  });
  for (let elapsed = 0; end === undefined && elapsed < 10 * input.maxMs; elapsed += 200) {
    input.step?.(elapsed);
    await vi.advanceTimersByTimeAsync(200);
  }
  await waiting;
  return { end, endedAfterMs: Date.now() };
}

describe("the soak's drain", () => {
  it('goes on past the stall time while handlers keep starting, until everything recovered', async () => {
    let starts = 0;
    const result = await drain({
      done: () => starts >= 400,
      progress: () => starts,
      step: () => {
        starts += 1;
      },
      stallMs: 10_000,
      maxMs: 900_000,
    });

    expect(result.end).toBe('done');
    expect(result.endedAfterMs).toBeGreaterThan(10_000);
  });

  it('ends stalled once nothing has started for the stall time', async () => {
    let starts = 0;
    const result = await drain({
      done: () => false,
      progress: () => starts,
      step: (elapsed) => {
        if (elapsed < 5_000) starts += 1;
      },
      stallMs: 10_000,
      maxMs: 900_000,
    });

    expect(result.end).toBe('stalled');
    expect(result.endedAfterMs).toBeGreaterThanOrEqual(15_000);
    expect(result.endedAfterMs).toBeLessThan(16_000);
  });

  it('ends at its cap however steadily the line drains', async () => {
    let starts = 0;
    const result = await drain({
      done: () => false,
      progress: () => starts,
      step: () => {
        starts += 1;
      },
      stallMs: 10_000,
      maxMs: 30_000,
    });

    expect(result.end).toBe('capped');
    expect(result.endedAfterMs).toBeLessThan(31_000);
  });
});

describe("the soak's tick line", () => {
  it('gives the longest time between two ticks ending, over both loops in any order', () => {
    const runs: [number, number][] = [
      [60_300, 61_000],
      [0, 500],
      [300, 2_000],
      [120_000, 185_000],
    ];

    expect(tickRunsLine(runs, 60)).toBe(
      "ticks (two loops, every 60 s): 4 runs, median 1700 ms, longest 65000 ms; longest between two ticks' ends 124000 ms",
    );
  });
});
