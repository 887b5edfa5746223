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

/** The later of two instants, either of which may be unknown (`null`). */
export function latestOf(a: EpochMs | null, b: EpochMs | null): EpochMs | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Waits `ms`; an aborted `signal` ends the wait early (and frees what it holds). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Resolves after `ms` of real time (at once for `ms <= 0`, or when `signal` is aborted). */
export const sleep: Sleep = (ms, signal) => {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
};

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
