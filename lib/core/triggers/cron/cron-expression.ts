import type { CronFieldCollection } from 'cron-parser';
import { LIMITS } from '../../limits';
import { quote, shorten } from '../../quote';
import { eventBridgeHint } from '../eventbridge/sundial-cron-hint';
import type { Parsed } from '../timestamps';
import { canonicalFields } from './cron-canonical';
import { expandCronFields } from './cron-library';
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

/**
 * Parses a cron expression (5 fields, or 6 with seconds first): bounds its length, checks it
 * against the syntax Sundial supports so a problem is explained in words, writes each list whose
 * members overlap as their union, and has cron-parser expand the fields.
 *
 * @example
 * const parsed = parseCronExpression('0 9 * * MON-FRI');
 * if (parsed.ok) parsed.value.weekdays[1]; // true
 * parseCronExpression('*\/0 * * * *'); // { ok: false, problem: "invalid cron expression '*\/0 * * * *': step must be at least 1" }
 */
export function parseCronExpression(expression: string): Parsed<CronSchedule> {
  const checked = checkedFields(expression);
  if (!checked.ok) return checked;
  const expanded = expandCronFields(canonicalFields(checked.value));
  if (!expanded.ok) return invalid(expression, expanded.problem);
  return { ok: true, value: toSchedule(expanded.value, checked.value) };
}

/**
 * The expression as Sundial reads it: each list whose items overlap written as their union
 * (`0 9 * * 0,7` → `0 9 * * 0`); the expression itself when none do or when it is invalid.
 *
 * @example
 * canonicalCronExpression('*\/15,30 * * * *'); // '0,15,30,45 * * * *'
 */
export function canonicalCronExpression(expression: string): string {
  const checked = checkedFields(expression);
  if (!checked.ok) return expression;
  const texts = canonicalFields(checked.value);
  if (texts.every((text, index) => text === checked.value[index])) return expression;
  const hasSeconds = expression.trim().split(/\s+/).length === 6;
  return (hasSeconds ? texts : texts.slice(1)).join(' ');
}

/** The six fields of an expression that is short enough and passes Sundial's syntax check. */
function checkedFields(expression: string): Parsed<CronFieldTexts> {
  const limit = LIMITS.cronExpressionLength;
  if (expression.length > limit) {
    return {
      ok: false,
      problem: `must be at most ${limit} characters (it has ${expression.length}); a cron expression needs far fewer`,
    };
  }
  const split = splitCronFields(expression);
  const problem = split.ok ? findCronFieldProblem(split.fields) : split.problem;
  if (!split.ok || problem !== undefined) {
    const hint = eventBridgeHint(expression);
    return invalid(
      expression,
      hint === undefined ? (problem ?? '') : `${hint} (as a Sundial cron expression: ${problem})`,
    );
  }
  return { ok: true, value: split.fields };
}

function invalid(expression: string, problem: string): { ok: false; problem: string } {
  return { ok: false, problem: `invalid cron expression ${quote(expression)}: ${shorten(problem, 300)}` };
}

/** Lookup tables from cron-parser's fields; whether a field is restricted goes by the text as written. */
function toSchedule(fields: CronFieldCollection, texts: CronFieldTexts): CronSchedule {
  const weekdays = table(7, []);
  const lastWeekdays = table(7, []);
  for (const value of fields.dayOfWeek.values as readonly (number | string)[]) {
    if (typeof value === 'number') weekdays[value % 7] = true;
    else lastWeekdays[Number.parseInt(value, 10) % 7] = true;
  }
  return {
    seconds: table(60, fields.second.values),
    minutes: table(60, fields.minute.values),
    hours: table(24, fields.hour.values),
    months: table(13, fields.month.values),
    daysOfMonth: table(32, fields.dayOfMonth.values),
    lastDayOfMonth: fields.dayOfMonth.values.includes('L'),
    weekdays,
    lastWeekdays,
    nthWeekday: fields.dayOfWeek.nthDay,
    dayOfMonthRestricted: texts[3] !== '*',
    dayOfWeekRestricted: texts[5] !== '*',
    hourIsWildcard: texts[2] === '*',
  };
}

/** A table of `size` entries, true at each number among `values` (`'L'` and `'5L'` are not numbers). */
function table(size: number, values: readonly (number | string)[]): boolean[] {
  const result = new Array<boolean>(size).fill(false);
  for (const value of values) if (typeof value === 'number') result[value] = true;
  return result;
}
