/** How the fire-lag runs are sized against the store's ceiling, and how much of it they used. */

/** WRU per job assumed when the run measured none (the tick-throughput runs were skipped or ran no job). */
export const DEFAULT_WRU_PER_JOB = 2.2;

/** The WRU per job the run measured (its first tick-throughput run's), or undefined if it measured none. */
export function measuredWruPerJob(dispatch: readonly { costs: { wru: number } }[]): number | undefined {
  const wru = dispatch[0]?.costs.wru;
  return wru !== undefined && Number.isFinite(wru) && wru > 0 ? wru : undefined;
}

/**
 * Schedules firing every `intervalSeconds` whose run writes `loadPercent` % of the raw ceiling: what
 * the platform writes idle (`idleWruPerSecond`, its ticks' shard leases and cursors) is taken from that
 * share first, and the rest is spent at `wruPerJob` per fire: (share × ceiling − idle) × interval ÷ WRU
 * per job, at least 1.
 */
export function schedulesForLoad(options: {
  loadPercent: number;
  rawWritesPerSecond: number;
  intervalSeconds: number;
  wruPerJob: number;
  idleWruPerSecond: number;
}): number {
  const { loadPercent, rawWritesPerSecond, intervalSeconds, wruPerJob, idleWruPerSecond } = options;
  const forFires = (loadPercent / 100) * rawWritesPerSecond - idleWruPerSecond;
  return Math.max(1, Math.round((forFires * intervalSeconds) / wruPerJob));
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
