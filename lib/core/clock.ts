/** Milliseconds since the Unix epoch (UTC). Every instant in Sundial's core is one of these. */
export type EpochMs = number;

/**
 * The only source of "now" in the core. Inject it; never call `Date.now()` in core code.
 *
 * @example
 * const clock = new ManualClock(Date.parse('2026-03-29T00:00:00Z'));
 * clock.advance(1_000);
 * clock.now(); // 2026-03-29T00:00:01Z in ms
 */
export interface Clock {
  now(): EpochMs;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Resolves after `ms` of real time (at once for `ms <= 0`). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** A clock that only moves when told to: for tests, simulations and benchmarks. */
export class ManualClock implements Clock {
  constructor(private current: EpochMs) {}

  now(): EpochMs {
    return this.current;
  }

  set(instant: EpochMs): void {
    this.current = instant;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
