import {
  ceilToSecond,
  daysFromCivil,
  daysInMonth,
  MAX_WALL_TIME,
  MS_PER_DAY,
  MS_PER_HOUR,
  MS_PER_MINUTE,
  MS_PER_SECOND,
  wallTimeToParts,
  weekdayFromDays,
} from '../calendar';
import type { CronSchedule } from './cron-expression';

/** The Gregorian calendar repeats every 400 years: a schedule with no match in 400 years never matches. */
const SEARCH_YEARS = 400;

/**
 * True when the cron schedule's day fields accept this date (POSIX: when both day-of-month and
 * day-of-week are restricted, either may match).
 */
export function dayMatches(schedule: CronSchedule, year: number, month: number, day: number): boolean {
  const monthLength = daysInMonth(year, month);
  const byDayOfMonth = schedule.daysOfMonth[day] === true || (schedule.lastDayOfMonth && day === monthLength);
  if (schedule.dayOfMonthRestricted && !schedule.dayOfWeekRestricted) return byDayOfMonth;
  const weekday = weekdayFromDays(daysFromCivil(year, month, day));
  const byDayOfWeek =
    (schedule.weekdays[weekday] === true &&
      (schedule.nthWeekday === 0 || Math.ceil(day / 7) === schedule.nthWeekday)) ||
    (schedule.lastWeekdays[weekday] === true && day + 7 > monthLength);
  if (schedule.dayOfMonthRestricted) return byDayOfMonth || byDayOfWeek;
  return schedule.dayOfWeekRestricted ? byDayOfWeek : true;
}

/**
 * The first wall time (see `calendar.ts`) at or after `wallTime` that the schedule matches, at
 * whole seconds; undefined when there is none before year 10000. Pure calendar arithmetic: time
 * zones play no part here.
 */
export function nextMatchingWallTime(schedule: CronSchedule, wallTime: number): number | undefined {
  const start = wallTimeToParts(ceilToSecond(wallTime));
  let { year, month, day } = start;
  let fromTime: TimeOfDay | undefined = { hour: start.hour, minute: start.minute, second: start.second };
  const lastYear = year + SEARCH_YEARS;
  while (year <= lastYear) {
    if (schedule.months[month] === true && day <= daysInMonth(year, month)) {
      if (dayMatches(schedule, year, month, day)) {
        const time = firstTimeOfDay(schedule, fromTime ?? MIDNIGHT);
        if (time !== undefined) {
          const result =
            daysFromCivil(year, month, day) * MS_PER_DAY +
            time.hour * MS_PER_HOUR +
            time.minute * MS_PER_MINUTE +
            time.second * MS_PER_SECOND;
          return result < MAX_WALL_TIME ? result : undefined;
        }
      }
      day += 1;
    } else {
      ({ year, month } = nextMonth(year, month));
      day = 1;
    }
    fromTime = undefined;
  }
  return undefined;
}

function nextMonth(year: number, month: number): { year: number; month: number } {
  return month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
}

interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

const MIDNIGHT: TimeOfDay = { hour: 0, minute: 0, second: 0 };

/** The first time of day at or after `from` that the schedule's time fields match. */
function firstTimeOfDay(schedule: CronSchedule, from: TimeOfDay): TimeOfDay | undefined {
  for (let hour = from.hour; hour < 24; hour++) {
    if (!schedule.hours[hour]) continue;
    const sameHour = hour === from.hour;
    for (let minute = sameHour ? from.minute : 0; minute < 60; minute++) {
      if (!schedule.minutes[minute]) continue;
      const second = firstAtOrAfter(schedule.seconds, sameHour && minute === from.minute ? from.second : 0);
      if (second !== undefined) return { hour, minute, second };
    }
  }
  return undefined;
}

function firstAtOrAfter(table: readonly boolean[], from: number): number | undefined {
  for (let value = from; value < table.length; value++) if (table[value]) return value;
  return undefined;
}
