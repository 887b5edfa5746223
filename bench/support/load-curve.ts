/** How the fire-lag runs are sized against the store's ceiling, and how much of it they used. */

/** WRU per job the calibration run is sized with (about what a fire's job and notes write). */
export const FIRST_GUESS_WRU_PER_JOB = 2.2;

/**
 * What a fire-lag run writes, as a calibration run measured it: per second with no schedule (`idle`:
 * the ticks' shard leases and cursors), per fire (its job and its schedule's notes), and once per
 * schedule (its removal when it finishes).
 */
export interface LagWrites {
  idlePerSecond: number;
  perFire: number;
  perScheduleEnd: number;
}

/** What a calibration run measured: its metered WRU, its schedules' removals among them, its fires. */
export interface CalibrationRun {
  meteredWriteUnits: number;
  executed: number;
  options: { schedules: number; intervalSeconds: number; durationSeconds: number };
  costs: { scheduleEndWru: number };
}

/**
 * The writes of a fire-lag run from a calibration run of the same scenario and the platform's idle
 * writes: the removals apart (they do not grow with a run's length), the rest per fire net of idle.
 */
export function lagWritesOf(run: CalibrationRun, idlePerSecond: number): LagWrites {
  const { schedules, intervalSeconds, durationSeconds } = run.options;
  const endWrites = run.costs.scheduleEndWru * run.executed;
  const firesPerSecond = schedules / intervalSeconds;
  const perFire = ((run.meteredWriteUnits - endWrites) / durationSeconds - idlePerSecond) / firesPerSecond;
  return { idlePerSecond, perFire: Math.max(perFire, 0.01), perScheduleEnd: endWrites / schedules };
}

/**
 * Schedules firing every `intervalSeconds` for `durationSeconds` whose run writes `loadPercent` % of
 * the raw ceiling (as `storeUse` measures it): the idle writes come out of that share first, then each
 * schedule writes its fires and its removal: (share × ceiling − idle) ÷ (per fire ÷ interval + per
 * removal ÷ duration), at least 1.
 */
export function schedulesForLoad(options: {
  loadPercent: number;
  rawWritesPerSecond: number;
  intervalSeconds: number;
  durationSeconds: number;
  writes: LagWrites;
}): number {
  const { loadPercent, rawWritesPerSecond, intervalSeconds, durationSeconds, writes } = options;
  const forSchedules = (loadPercent / 100) * rawWritesPerSecond - writes.idlePerSecond;
  const perSchedule = writes.perFire / intervalSeconds + writes.perScheduleEnd / durationSeconds;
  return Math.max(1, Math.round(forSchedules / perSchedule));
}

/**
 * The store's measured use by a run: the WRU it metered per second of its fires (every write of the
 * run: jobs, schedules, their removal at the end) ÷ the raw ceiling (0.5 = half of it).
 */
export function storeUse(
  run: { meteredWriteUnits: number; options: { durationSeconds: number } },
  rawWritesPerSecond: number,
): number {
  return run.meteredWriteUnits / run.options.durationSeconds / rawWritesPerSecond;
}
