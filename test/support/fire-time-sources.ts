import type { EpochMs } from '../../lib/core/clock';
import type { FireTimeSource } from '../../lib/core/triggers';

/** Fires at each of the given instants (any order, duplicates ignored). */
export function listSource(instants: readonly EpochMs[]): FireTimeSource {
  const sorted = [...new Set(instants)].sort((a, b) => a - b);
  return { next: (from) => sorted.find((instant) => instant >= from) };
}

/** Fires every `periodMs` from `start`, optionally until `end` (inclusive). */
export function periodicSource(start: EpochMs, periodMs: number, end?: EpochMs): FireTimeSource {
  return {
    next(from) {
      const steps = from <= start ? 0 : Math.ceil((from - start) / periodMs);
      const fire = start + steps * periodMs;
      return end !== undefined && fire > end ? undefined : fire;
    },
  };
}
