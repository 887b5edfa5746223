/**
 * Proleptic Gregorian calendar arithmetic on plain integers.
 *
 * A "wall time" is a local date and time-of-day written as milliseconds since 1970-01-01T00:00
 * *as if* it were UTC: it names a clock reading, not an instant. Zones turn wall times into
 * instants (see `zones.ts`). Integer arithmetic avoids `Date`'s pitfalls (years 0-99 map to
 * 1900-1999 in `Date.UTC`) and is fast enough to run inside every `next()` call.
 */

export const MS_PER_SECOND = 1_000;
export const MS_PER_MINUTE = 60_000;
export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;

/** A calendar date; `month` is 1-12. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

export interface WallTimeParts extends CivilDate {
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** Days since 1970-01-01 (H. Hinnant's `days_from_civil`). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date `days` days after 1970-01-01 (H. Hinnant's `civil_from_days`). */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return { year: era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day };
}

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayFromDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

export function wallTimeToParts(wallTime: number): WallTimeParts {
  const days = Math.floor(wallTime / MS_PER_DAY);
  let rest = wallTime - days * MS_PER_DAY;
  const hour = Math.floor(rest / MS_PER_HOUR);
  rest -= hour * MS_PER_HOUR;
  const minute = Math.floor(rest / MS_PER_MINUTE);
  rest -= minute * MS_PER_MINUTE;
  const second = Math.floor(rest / MS_PER_SECOND);
  return { ...civilFromDays(days), hour, minute, second, millisecond: rest - second * MS_PER_SECOND };
}

/** Fire times end before year 10000: ISO-8601 and `Date` formatting break there. */
export const MAX_WALL_TIME = daysFromCivil(10_000, 1, 1) * MS_PER_DAY;

/** The smallest whole second at or after `ms`. */
export function ceilToSecond(ms: number): number {
  return Math.ceil(ms / MS_PER_SECOND) * MS_PER_SECOND;
}
