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
 * How often an operation the store retries after a lost answer meets its own earlier try, in every seed,
 * the quiet ones too: handled as it must be, it disturbs nothing, so it belongs where the line checks
 * hold to their tightest bounds (a seed without faults has no disturbed stretch at all); it is more
 * often than the other faults for the same reason.
 */
const RETRIED_ANSWER_LOST = 0.05;

/**
 * The options of one run from its seed: the fault rates and latencies vary with the seed (some seeds
 * are quiet, some stormy), so that the budget sees both.
 */
export function runOptionsOf(seed: number, shape: RunShape): RunOptions {
  const storm = [0, 0.002, 0.01, 0.03][seed % 4] as number;
  // Half of the seeds have a queue behind a backlog, each storm level among them.
  const travelMs = [0, 15_000][Math.floor(seed / 4) % 2] as number;
  // Half of those again have a queue that delivers copies often (a copy may come up to a minute late),
  // so that copies meet the states a job passes through: woken, taken over, cancelled by its check.
  const duplicate = [0.01, 0.05][Math.floor(seed / 8) % 2] as number;
  return {
    seed,
    size: {
      steadySchedules: shape.steadySchedules,
      churnedSchedules: shape.churnedSchedules,
      windowMs: shape.minutes * 60_000,
      chaosEveryMs: 8_000,
    },
    faults: {
      store: {
        refused: storm,
        answerLost: storm / 2,
        crashBefore: storm / 10,
        crashAfter: storm / 10,
        answerLostRetried: RETRIED_ANSWER_LOST,
      },
      queue: {
        sendFails: storm,
        sendAnswerLost: storm / 2,
        duplicate,
        deleteLost: storm,
        visibilityRefused: storm,
        travelMs,
      },
      eventsRefused: storm * 2,
      invokeRefused: storm,
      tickTwice: 0.02,
      invocationDies: storm / 3,
      vanishesAfterChange: storm > 0 ? 1 : 0,
    },
    storeLatency: { minMs: 2, maxMs: 25, slowChance: 0.01 + storm, slowMs: 3_000 },
    workers: 6,
  };
}
