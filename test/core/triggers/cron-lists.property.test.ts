import { CronExpressionParser } from 'cron-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalCronExpression,
  parseCronExpression,
} from '../../../lib/core/triggers/cron/cron-expression';
import { cronFieldsArb } from './arbitraries';

/** The values of a lookup table (`[false, true, true]` → `[1, 2]`). */
const valuesOf = (table: readonly boolean[]) => table.flatMap((match, value) => (match ? [value] : []));
const sorted = (values: Iterable<number>) => [...new Set(values)].sort((a, b) => a - b);
const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** cron-parser's values for one list member alone in its field (index 0-5, seconds first). */
function memberValues(field: number, member: string): readonly (number | string)[] {
  const texts = ['*', '*', '*', '*', '*', '*'].map((text, index) => (index === field ? member : text));
  const { fields } = CronExpressionParser.parse(texts.join(' ').toUpperCase(), { tz: 'UTC', currentDate: 0 });
  return [fields.second, fields.minute, fields.hour, fields.dayOfMonth, fields.month, fields.dayOfWeek][field]
    ?.values as readonly (number | string)[];
}

/** Each field as the union of what cron-parser reads its members as, in the shape of Sundial's tables. */
function unionOfMembers(fields: readonly string[]) {
  const union = (field: number) =>
    (fields[field] ?? '').split(',').flatMap((member) => memberValues(field, member));
  const numbers = (values: readonly (number | string)[], modulo = 100) =>
    sorted(values.flatMap((value) => (typeof value === 'number' ? [value % modulo] : [])));
  const dayOfWeek = union(5);
  return {
    seconds: numbers(union(0)),
    minutes: numbers(union(1)),
    hours: numbers(union(2)),
    daysOfMonth: numbers(union(3)),
    lastDayOfMonth: union(3).includes('L'),
    months: numbers(union(4)),
    weekdays: numbers(dayOfWeek, 7),
    lastWeekdays: sorted(
      dayOfWeek.flatMap((value) => (typeof value === 'string' ? [Number.parseInt(value, 10) % 7] : [])),
    ),
    nthWeekday: Number(fields[5]?.split('#')[1] ?? 0),
  };
}

function cronParserRefusal(expression: string): string | undefined {
  try {
    CronExpressionParser.parse(expression.toUpperCase(), { tz: 'UTC', currentDate: 0 });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('cron lists (property)', () => {
  it('read every list as the union of what cron-parser reads its members as, overlapping or not', () => {
    fc.assert(
      fc.property(cronFieldsArb, (fields) => {
        const expression = fields.join(' ');
        const parsed = parseCronExpression(expression);
        const canonical = canonicalCronExpression(expression);
        if (!parsed.ok) {
          // The only refusal of a well-formed expression: a day of the month none of its months has.
          expect(parsed.problem).toMatch(/it never fires/);
          expect(cronParserRefusal(canonical)).toBe('Invalid explicit day of month definition');
          return;
        }
        const schedule = parsed.value;
        // cron-parser drops days a single chosen month lacks (31 with April alone); they never match anyway.
        const longestMonth = Math.max(...valuesOf(schedule.months).map((month) => DAYS_IN_MONTH[month] ?? 0));
        const existingDays = (days: readonly number[]) => days.filter((day) => day <= longestMonth);
        const expected = unionOfMembers(fields);
        expect({
          seconds: valuesOf(schedule.seconds),
          minutes: valuesOf(schedule.minutes),
          hours: valuesOf(schedule.hours),
          daysOfMonth: existingDays(valuesOf(schedule.daysOfMonth)),
          lastDayOfMonth: schedule.lastDayOfMonth,
          months: valuesOf(schedule.months),
          weekdays: valuesOf(schedule.weekdays),
          lastWeekdays: valuesOf(schedule.lastWeekdays),
          nthWeekday: schedule.nthWeekday,
        }).toEqual({ ...expected, daysOfMonth: existingDays(expected.daysOfMonth) });
        // cron-parser refuses a well-formed expression as written only for a value listed twice,
        // which the union removes.
        const refusal = cronParserRefusal(expression);
        if (refusal !== undefined) {
          expect(refusal).toMatch(/duplicate values found/);
          expect(canonical).not.toBe(expression);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
