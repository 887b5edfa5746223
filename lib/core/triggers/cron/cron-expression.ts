import { daysInMonth } from '../calendar';
import type { Parsed } from '../timestamps';
import { canonicalFieldText, expandField, type FieldValues } from './cron-fields';
import {
  type CronFieldTexts,
  FIELD_RULES,
  type FieldRule,
  findCronFieldProblem,
  splitCronFields,
} from './cron-syntax';

/**
 * A cron expression expanded into lookup tables: everything `next()` needs, nothing it must re-parse.
 * Tables are indexed by the field value (`minutes[30]` is true when minute 30 matches).
 */
export interface CronSchedule {
  readonly seconds: readonly boolean[];
  readonly minutes: readonly boolean[];
  readonly hours: readonly boolean[];
  /** Index 1-12. */
  readonly months: readonly boolean[];
  /** Index 1-31. */
  readonly daysOfMonth: readonly boolean[];
  readonly lastDayOfMonth: boolean;
  /** Index 0-6, 0 = Sunday. */
  readonly weekdays: readonly boolean[];
  /** `5L`: the last Friday of the month. Index 0-6. */
  readonly lastWeekdays: readonly boolean[];
  /** `5#3`: only the third Friday; 0 when the field has no `#`. */
  readonly nthWeekday: number;
  /** A field is restricted unless it is exactly `*`; when both day fields are, a day matching either fires (POSIX). */
  readonly dayOfMonthRestricted: boolean;
  readonly dayOfWeekRestricted: boolean;
  /** The hour field is exactly `*`: the schedule follows real time through DST overlaps. */
  readonly hourIsWildcard: boolean;
}

const NEVER_FIRES =
  'it never fires: none of its months has that day of the month (February has at most 29 days; April, June, September and November have 30)';

/**
 * Parses a cron expression (5 fields, or 6 with seconds first): checks it against the syntax
 * Sundial supports, so a problem is explained in words, then expands every field itself (a list
 * is the union of its items, overlapping or not). No cron library is involved, so no library's
 * message can reach a user.
 *
 * @example
 * const parsed = parseCronExpression('0 9 * * MON-FRI');
 * if (parsed.ok) parsed.value.weekdays[1]; // true
 * parseCronExpression('*\/0 * * * *'); // { ok: false, problem: "invalid cron expression '*\/0 * * * *': step must be at least 1" }
 */
export function parseCronExpression(expression: string): Parsed<CronSchedule> {
  const split = splitCronFields(expression);
  const problem = split.ok ? findCronFieldProblem(split.fields) : split.problem;
  if (!split.ok || problem !== undefined) return invalid(expression, problem ?? '');
  const schedule = toSchedule(split.fields);
  if (neverFires(schedule)) return invalid(expression, NEVER_FIRES);
  return { ok: true, value: schedule };
}

/**
 * The expression as Sundial reads it: each list whose items overlap written as their union
 * (`0 9 * * 0,7` → `0 9 * * 0`); the expression itself when none do or when it is invalid.
 *
 * @example
 * canonicalCronExpression('*\/15,30 * * * *'); // '0,15,30,45 * * * *'
 */
export function canonicalCronExpression(expression: string): string {
  const split = splitCronFields(expression);
  if (!split.ok || findCronFieldProblem(split.fields) !== undefined) return expression;
  const texts = split.fields.map((text, index) => canonicalFieldText(text, FIELD_RULES[index] as FieldRule));
  if (texts.every((text, index) => text === split.fields[index])) return expression;
  const hasSeconds = expression.trim().split(/\s+/).length === 6;
  return (hasSeconds ? texts : texts.slice(1)).join(' ');
}

function invalid(expression: string, problem: string): { ok: false; problem: string } {
  return { ok: false, problem: `invalid cron expression '${expression}': ${problem}` };
}

function toSchedule(texts: CronFieldTexts): CronSchedule {
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = texts.map((text, index) =>
    expandField(text, FIELD_RULES[index] as FieldRule),
  ) as [FieldValues, FieldValues, FieldValues, FieldValues, FieldValues, FieldValues];
  return {
    seconds: table(60, second.values),
    minutes: table(60, minute.values),
    hours: table(24, hour.values),
    months: table(13, month.values),
    daysOfMonth: table(32, dayOfMonth.values),
    lastDayOfMonth: dayOfMonth.lastDay,
    weekdays: table(7, dayOfWeek.values),
    lastWeekdays: table(7, dayOfWeek.lastWeekdays),
    nthWeekday: dayOfWeek.nth,
    dayOfMonthRestricted: texts[3] !== '*',
    dayOfWeekRestricted: texts[5] !== '*',
    hourIsWildcard: texts[2] === '*',
  };
}

/** Only the day of month decides (day-of-week is `*`), and its smallest day is in none of the months. */
function neverFires(schedule: CronSchedule): boolean {
  if (schedule.dayOfWeekRestricted || schedule.lastDayOfMonth) return false;
  const smallestDay = schedule.daysOfMonth.indexOf(true);
  const longestMonth = Math.max(
    ...schedule.months.flatMap((included, month) => (included ? [daysInMonth(2000, month)] : [])),
  );
  return smallestDay > longestMonth;
}

function table(size: number, values: ReadonlySet<number>): boolean[] {
  const result = new Array<boolean>(size).fill(false);
  for (const value of values) result[value] = true;
  return result;
}
