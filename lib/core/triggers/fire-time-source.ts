import type { EpochMs } from '../clock';

/**
 * The fire times of a compiled trigger. `next` is a pure function of its argument: the scheduler
 * asks for "the next fire after the last one dispatched" as `next(last + 1)`, from any process.
 */
export interface FireTimeSource {
  /** The first fire time at or after `fromInclusive`, or undefined when the trigger is finished. */
  next(fromInclusive: EpochMs): EpochMs | undefined;
}

/**
 * Restricts a source to `[startAt, endAt]` (both inclusive, either open).
 *
 * @example
 * const daily = withinWindow(source, Date.parse('2026-01-01T00:00:00Z'), undefined);
 */
export function withinWindow(
  source: FireTimeSource,
  startAt: EpochMs | undefined,
  endAt: EpochMs | undefined,
): FireTimeSource {
  if (startAt === undefined && endAt === undefined) return source;
  return {
    next(fromInclusive) {
      const fire = source.next(startAt === undefined ? fromInclusive : Math.max(fromInclusive, startAt));
      return fire === undefined || (endAt !== undefined && fire > endAt) ? undefined : fire;
    },
  };
}
