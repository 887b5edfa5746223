import type { EpochMs } from '../clock';
import { civilFromDays, daysFromCivil, daysInMonth, MAX_WALL_TIME, MS_PER_DAY } from './calendar';
import type { FireTimeSource } from './fire-time-source';
import { resolveWallTime, wallTimeAt, type ZoneRules } from './zones';

export interface CalendarStep {
  /** Calendar months per step (years × 12 + months). */
  months: number;
  /** Days per step (weeks × 7 + days). */
  days: number;
}

export interface CalendarIntervalPlan {
  step: CalendarStep;
  /** First date, in days since 1970-01-01. */
  startDay: number;
  /** Last date that may fire (inclusive), in days since 1970-01-01. */
  endDay: number | undefined;
  /** Wall-clock time of day of every fire, in ms after midnight. */
  timeOfDayMs: number;
  zone: ZoneRules;
}

/** Average days per month in the Gregorian calendar: only used to guess a step index, then corrected. */
const AVERAGE_MONTH_DAYS = 146_097 / 4_800;
/**
 * Month arithmetic repeats every 4,800 months (400 Gregorian years) and occurrence 0 exists, so a
 * run of this many missing dates cannot happen; the bound only guards the loop.
 */
const MAX_SKIPPED_OCCURRENCES = 4_800;

/**
 * Fires at the same wall-clock time on dates counted from the start date: occurrence i falls on
 * `start + i × months` (skipped when that date does not exist, e.g. 31 February, without drifting)
 * plus `i × days`. The occurrence for a far-away `from` is computed, not walked to.
 * A time in a DST gap fires at the first instant after it; in an overlap, at the first occurrence.
 *
 * @example
 * // Monthly on the 31st: Jan 31, Mar 31, May 31, … (never Feb 28 or Apr 30).
 * calendarIntervalFireTimes({ step: { months: 1, days: 0 }, startDay: daysFromCivil(2026, 1, 31), endDay: undefined,
 *   timeOfDayMs: 0, zone: zoneRules('UTC') });
 */
export function calendarIntervalFireTimes(plan: CalendarIntervalPlan): FireTimeSource {
  const start = civilFromDays(plan.startDay);
  const { months, days } = plan.step;

  const monthOf = (i: number) => {
    const monthIndex = start.month - 1 + i * months;
    const yearOffset = Math.floor(monthIndex / 12);
    return { year: start.year + yearOffset, month: monthIndex - yearOffset * 12 + 1 };
  };
  /** Occurrence i's date with an overflowing day rolled into the next month: never decreases as i grows. */
  const rolledDay = (i: number): number => {
    const { year, month } = monthOf(i);
    return daysFromCivil(year, month, 1) + start.day - 1 + i * days;
  };
  /** Occurrence i's date, or undefined when `start + i × months` does not exist. */
  const occurrenceDay = (i: number): number | undefined => {
    const { year, month } = monthOf(i);
    return start.day <= daysInMonth(year, month) ? rolledDay(i) : undefined;
  };

  return {
    next(fromInclusive: EpochMs) {
      // A fire at or after `from` lies on or after the day before `from`'s local date.
      const earliestDay = Math.floor(wallTimeAt(plan.zone, fromInclusive) / MS_PER_DAY) - 1;
      let i = Math.max(0, Math.floor((earliestDay - plan.startDay) / (months * AVERAGE_MONTH_DAYS + days)));
      while (i > 0 && rolledDay(i - 1) >= earliestDay) i--;
      while (rolledDay(i) < earliestDay) i++;
      for (let skipped = 0; skipped <= MAX_SKIPPED_OCCURRENCES; i++) {
        const day = occurrenceDay(i);
        if (day === undefined) {
          skipped++;
          continue;
        }
        const wallTime = day * MS_PER_DAY + plan.timeOfDayMs;
        if ((plan.endDay !== undefined && day > plan.endDay) || wallTime >= MAX_WALL_TIME) return undefined;
        const fire = resolveWallTime(plan.zone, wallTime);
        if (fire >= fromInclusive) return fire;
      }
      return undefined;
    },
  };
}
