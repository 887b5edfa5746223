import type { EpochMs } from '../clock';

/** At most `max` jobs of a task start in any `perSeconds` seconds, across all workers. */
export interface RateLimit {
  max: number;
  perSeconds: number;
}

/** The bounds a task's `rateLimit` must keep (checked when the task registry loads the module). */
export const RATE_LIMIT_BOUNDS = {
  max: { min: 1, max: 10_000 },
  perSeconds: { min: 1, max: 86_400 },
} as const;

/**
 * The least time between two starts of a rate-limited task. Starts are paced (a token bucket holding
 * one token): with `max` starts spaced at least this far apart, any `perSeconds` window holds at most
 * `max` of them (rounded up, so `max + 1` starts span at least `perSeconds`).
 */
export function startIntervalMs(rate: RateLimit): number {
  return Math.ceil((rate.perSeconds * 1000) / rate.max);
}

/** When the task's next job may start after one started at `startedAt`. */
export function nextStartAfter(rate: RateLimit, startedAt: EpochMs): EpochMs {
  return startedAt + startIntervalMs(rate);
}
