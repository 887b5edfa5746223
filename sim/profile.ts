import type { RunOptions } from './run';

/** The size of one run: what shrinking makes smaller. */
export interface RunShape {
  steadySchedules: number;
  churnedSchedules: number;
  /** Simulated minutes of faults and chaos (the quiet end comes after). */
  minutes: number;
}

/** What the CI budget runs: big enough for every kind of fault to meet every kind of call. */
export const DEFAULT_RUN: RunShape = { steadySchedules: 50, churnedSchedules: 8, minutes: 20 };

/**
 * The options of one run from its seed: the fault rates and latencies vary with the seed (some seeds
 * are quiet, some stormy), so that the budget sees both.
 */
export function runOptionsOf(seed: number, shape: RunShape): RunOptions {
  const storm = [0, 0.002, 0.01, 0.03][seed % 4] as number;
  return {
    seed,
    size: {
      steadySchedules: shape.steadySchedules,
      churnedSchedules: shape.churnedSchedules,
      windowMs: shape.minutes * 60_000,
      chaosEveryMs: 8_000,
    },
    faults: {
      store: { refused: storm, answerLost: storm / 2, crashBefore: storm / 10, crashAfter: storm / 10 },
      queue: {
        sendFails: storm,
        sendAnswerLost: storm / 2,
        duplicate: 0.01,
        deleteLost: storm,
        visibilityRefused: storm,
      },
      eventsRefused: storm * 2,
      invokeRefused: storm,
      tickTwice: 0.02,
    },
    storeLatency: { minMs: 2, maxMs: 25, slowChance: 0.01 + storm, slowMs: 3_000 },
    workers: 6,
  };
}
