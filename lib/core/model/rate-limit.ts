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
 * How late a handler may start after its claim's planned start and still keep the limit measured in
 * handlers: the intervals between claims carry this much slack in every `max + 1` starts.
 */
export const RATE_START_TOLERANCE_MS = 100;

/**
 * The least time between two starts of a rate-limited task. Starts are paced (a token bucket holding
 * one token): `max + 1` claims spaced this far apart span at least `perSeconds` plus
 * `RATE_START_TOLERANCE_MS`, so any `perSeconds` window holds at most `max` claims, and at most `max`
 * handler starts as long as no handler starts more than the tolerance later than planned.
 */
export function startIntervalMs(rate: RateLimit): number {
  return Math.ceil((rate.perSeconds * 1000 + RATE_START_TOLERANCE_MS) / rate.max);
}

/** When the task's next job may start after one started at `startedAt`. */
export function nextStartAfter(rate: RateLimit, startedAt: EpochMs): EpochMs {
  return startedAt + startIntervalMs(rate);
}
