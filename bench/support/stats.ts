/** The value below which `p` (0..1) of the sorted values lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface Distribution {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  min: number;
}

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    min: sorted[0] ?? Number.NaN,
  };
}

/**
 * The fires of a steady load: from `fromMs` to `toMs` after the first fire time, past the start-up
 * burst (the first tick sends the whole lookahead at once) and before the schedules' last fires.
 */
export interface SteadyWindow {
  fromMs: number;
  toMs: number;
}

/** One job's lag, with its fire time as an offset from the run's first fire time. */
export interface TimedLag {
  offsetMs: number;
  lagMs: number;
}

/** The lags of the fires inside `window`. */
export function steadyLag(lags: readonly TimedLag[], window: SteadyWindow): Distribution {
  return distribution(
    lags
      .filter((lag) => lag.offsetMs >= window.fromMs && lag.offsetMs <= window.toMs)
      .map((lag) => lag.lagMs),
  );
}
