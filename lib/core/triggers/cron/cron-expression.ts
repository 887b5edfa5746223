import { CronExpressionParser, type CronFieldCollection } from 'cron-parser';
import { quote, shorten } from '../../quote';
import type { Parsed } from '../timestamps';
import { type CronFieldTexts, findCronFieldProblem, splitCronFields } from './cron-syntax';

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
 * Parses a cron expression (5 fields, or 6 with seconds first) with cron-parser, after checking it
 * against the syntax Sundial supports so a problem is explained in words.
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
  let fields: CronFieldCollection;
  try {
    fields = CronExpressionParser.parse(split.fields.join(' ').toUpperCase(), {
      tz: 'UTC',
      currentDate: 0,
    }).fields;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return invalid(expression, message.includes('Invalid explicit day of month') ? NEVER_FIRES : message);
  }
  return { ok: true, value: toSchedule(fields, split.fields) };
}

function invalid(expression: string, problem: string): { ok: false; problem: string } {
  return { ok: false, problem: `invalid cron expression ${quote(expression)}: ${shorten(problem, 300)}` };
}

function toSchedule(fields: CronFieldCollection, texts: CronFieldTexts): CronSchedule {
  const weekdays = table(7, []);
  const lastWeekdays = table(7, []);
  for (const value of fields.dayOfWeek.values) {
    if (typeof value === 'number') weekdays[value % 7] = true;
    else lastWeekdays[Number.parseInt(value, 10) % 7] = true;
  }
  return {
    seconds: table(60, fields.second.values),
    minutes: table(60, fields.minute.values),
    hours: table(24, fields.hour.values),
    months: table(13, fields.month.values),
    daysOfMonth: table(
      32,
      fields.dayOfMonth.values.filter((value) => typeof value === 'number'),
    ),
    lastDayOfMonth: fields.dayOfMonth.values.includes('L'),
    weekdays,
    lastWeekdays,
    nthWeekday: fields.dayOfWeek.nthDay,
    dayOfMonthRestricted: texts[3] !== '*',
    dayOfWeekRestricted: texts[5] !== '*',
    hourIsWildcard: texts[2] === '*',
  };
}

function table(size: number, values: readonly (number | string)[]): boolean[] {
  const result = new Array<boolean>(size).fill(false);
  for (const value of values) if (typeof value === 'number') result[value] = true;
  return result;
}
