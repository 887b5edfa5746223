import type { EpochMs } from '../clock';
import type { FireTimeSource } from './fire-time-source';

/**
 * Fires at `anchor + k × periodMs` for every integer k (elapsed time: DST plays no part). The
 * caller restricts it to the trigger's window. O(1) per call.
 *
 * @example
 * intervalFireTimes(0, 5_000).next(12_001); // 15000
 */
export function intervalFireTimes(anchor: EpochMs, periodMs: number): FireTimeSource {
  return {
    next(fromInclusive) {
      const steps = Math.ceil((fromInclusive - anchor) / periodMs);
      return anchor + steps * periodMs;
    },
  };
}
