import type { EpochMs } from '../clock';
import type { FireTimeSource } from '../triggers';

const FIRST_LOOKBACK_MS = 1_000;

/**
 * The latest fire time in `[from, until]`, or undefined when there is none.
 *
 * Triggers only answer "next fire at or after t", so instead of walking every missed fire time
 * (a per-second schedule after a day-long outage has 86,400), this looks back from `until` over
 * growing windows and walks forward only inside the first window that holds a fire time.
 */
export function latestFireTime(source: FireTimeSource, from: EpochMs, until: EpochMs): EpochMs | undefined {
  let lookback = FIRST_LOOKBACK_MS;
  for (;;) {
    const windowStart = Math.max(from, until - lookback);
    let candidate = source.next(windowStart);
    if (candidate !== undefined && candidate <= until) {
      let latest = candidate;
      for (;;) {
        candidate = source.next(latest + 1);
        if (candidate === undefined || candidate > until) return latest;
        latest = candidate;
      }
    }
    if (windowStart === from) return undefined;
    lookback *= 4;
  }
}
