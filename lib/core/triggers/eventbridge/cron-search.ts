import {
  daysFromCivil,
  daysInMonth,
  MS_PER_DAY,
  MS_PER_MINUTE,
  wallTimeToParts,
  weekdayFromDays,
} from '../calendar';
import { type DayRule, type EventBridgeCron, FIRST_YEAR, LAST_YEAR } from './cron-fields';

/**
 * The first wall time (see `calendar.ts`) at or after `wallTime` that an EventBridge cron matches,
 * at whole minutes; undefined when there is none up to the end of its last year (2199 at most).
 */
export function nextEventBridgeWallTime(cron: EventBridgeCron, wallTime: number): number | undefined {
  const start = wallTimeToParts(Math.ceil(wallTime / MS_PER_MINUTE) * MS_PER_MINUTE);
  let { year, month, day } = start;
  let fromMinute: number | undefined = start.hour * 60 + start.minute;
  if (year < FIRST_YEAR) [year, month, day, fromMinute] = [FIRST_YEAR, 1, 1, undefined];
  while (year <= LAST_YEAR) {
    if (cron.years[year - FIRST_YEAR] !== true) {
      [year, month, day] = [year + 1, 1, 1];
    } else if (cron.months[month] !== true || day > daysInMonth(year, month)) {
      [year, month, day] = month === 12 ? [year + 1, 1, 1] : [year, month + 1, 1];
    } else {
      const minuteOfDay = dayMatches(cron.day, year, month, day)
        ? firstMinuteOfDay(cron, fromMinute ?? 0)
        : undefined;
      if (minuteOfDay !== undefined)
        return daysFromCivil(year, month, day) * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE;
      day += 1;
    }
    fromMinute = undefined;
  }
  return undefined;
}

/**
 * True when the day rule accepts this date.
 *
 * @example
 * dayMatches({ kind: 'nearestWeekday', day: 1 }, 2026, 8, 3); // true: Aug 1 2026 is a Saturday, W stays in the month
 */
export function dayMatches(rule: DayRule, year: number, month: number, day: number): boolean {
  const monthLength = daysInMonth(year, month);
  const weekday = weekdayFromDays(daysFromCivil(year, month, day));
  switch (rule.kind) {
    case 'every':
      return true;
    case 'days':
      return rule.days[day] === true;
    case 'last':
      return day === monthLength;
    case 'lastWeekday':
      return day === nearestWeekday(year, month, monthLength);
    case 'nearestWeekday':
      return rule.day <= monthLength && day === nearestWeekday(year, month, rule.day);
    case 'weekdays':
      return rule.weekdays[weekday] === true;
    case 'lastOf':
      return weekday === rule.weekday && day + 7 > monthLength;
    case 'nth':
      return weekday === rule.weekday && Math.ceil(day / 7) === rule.nth;
  }
}

/** The Monday-to-Friday day nearest `day`, without leaving the month (Quartz's `W`). */
function nearestWeekday(year: number, month: number, day: number): number {
  const weekday = weekdayFromDays(daysFromCivil(year, month, day));
  if (weekday === 6) return day === 1 ? 3 : day - 1;
  if (weekday === 0) return day === daysInMonth(year, month) ? day - 2 : day + 1;
  return day;
}

function firstMinuteOfDay(cron: EventBridgeCron, fromMinute: number): number | undefined {
  for (let hour = Math.floor(fromMinute / 60); hour < 24; hour++) {
    if (cron.hours[hour] !== true) continue;
    const firstMinute = hour === Math.floor(fromMinute / 60) ? fromMinute % 60 : 0;
    for (let minute = firstMinute; minute < 60; minute++) {
      if (cron.minutes[minute] === true) return hour * 60 + minute;
    }
  }
  return undefined;
}
