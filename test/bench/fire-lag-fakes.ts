import type { FireLagPoint } from '../../bench/report/fire-lag-section';
import type { BullmqFireLagResult } from '../../bench/scenarios/bullmq-fire-lag';
import type { FireLagResult } from '../../bench/scenarios/fire-lag';
import type { JobCosts } from '../../bench/support/costs';
import { distribution } from '../../bench/support/stats';

const WORKLOAD = { intervalSeconds: 5, durationSeconds: 120 };

/** Per-job costs of 2 WRU (0.2 of them the schedule's removal at its end), 1 RRU and 3 SQS requests. */
export const COSTS: JobCosts = {
  jobs: 3,
  wru: 2,
  jobWru: 1.5,
  scheduleWru: 0.3,
  scheduleEndWru: 0.2,
  scheduleEndIndexWru: 0,
  otherWru: 0,
  indexWru: 0,
  failedWru: 0,
  rru: 1,
  sqsRequests: 3,
  sqsByAction: { SendMessageBatch: 1, ReceiveMessage: 1, DeleteMessageBatch: 1 },
  emptyReceives: 0,
  invocations: 0.1,
  workerMsPerInvocation: 40,
  workerWaitMsPerJob: 20,
  workerWaitMsPerInvocation: 30,
  tickMsPerJob: 1,
};

/** Lags of fires at 1 s, 10 s, then 119 s (Sundial) or 60 s (BullMQ) after the first fire time. */
function timed(lagsMs: number[], lastOffsetMs: number) {
  return lagsMs.map((lagMs, index) => ({ offsetMs: [1_000, 10_000][index] ?? lastOffsetMs, lagMs }));
}

/** A Sundial fire-lag run of three fires (`schedules` schedules): only the second is in the steady window. */
export function sundialRun(lagsMs: number[], schedules = 1000): FireLagResult {
  return {
    options: { ...WORKLOAD, schedules, workers: 32, tickSeconds: 1 },
    expected: lagsMs.length,
    executed: lagsMs.length,
    duplicates: 0,
    lagsMs,
    lag: distribution(lagsMs),
    steady: { fromMs: 5_000, toMs: 115_000, lag: distribution(lagsMs.slice(1, 2)) },
    timedLags: timed(lagsMs, 119_000),
    meteredWriteUnits: 0,
    costs: COSTS,
  };
}

/** BullMQ's run of the same workload: its second fire is in Sundial's steady window, and so is its third. */
export function bullmqRun(lagsMs: number[], schedules = 1000): BullmqFireLagResult {
  return {
    status: 'ran',
    options: { ...WORKLOAD, schedules, concurrency: 32 },
    expected: lagsMs.length,
    executed: lagsMs.length,
    duplicates: 0,
    unexpected: [],
    lagsMs,
    lag: distribution(lagsMs),
    timedLags: timed(lagsMs, 60_000),
  };
}

/** A point of the curve at `loadPercent` whose store use is that share of the ceiling. */
export function fireLagPoint(
  loadPercent: number,
  sundial: FireLagResult,
  bullmq: BullmqFireLagResult = { status: 'skipped', reason: 'redis-server not installed' },
): FireLagPoint {
  return {
    loadPercent,
    schedules: sundial.options.schedules,
    writes: { idlePerSecond: 50, perFire: 2.6, perScheduleEnd: 6 },
    storeUse: loadPercent / 100,
    sundial,
    bullmq,
  };
}
