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

/** cron-parser's reading of an expression, in the shape of Sundial's tables, or its error message. */
function cronParserReading(expression: string) {
  try {
    const { fields } = CronExpressionParser.parse(expression.toUpperCase(), { tz: 'UTC', currentDate: 0 });
    const numbers = (values: readonly (number | string)[]) =>
      [...new Set(values.flatMap((value) => (typeof value === 'number' ? [value] : [])))].sort(
        (a, b) => a - b,
      );
    const dayOfWeek = fields.dayOfWeek.values;
    return {
      seconds: numbers(fields.second.values),
      minutes: numbers(fields.minute.values),
      hours: numbers(fields.hour.values),
      daysOfMonth: numbers(fields.dayOfMonth.values),
      lastDayOfMonth: fields.dayOfMonth.values.includes('L'),
      months: numbers(fields.month.values),
      weekdays: numbers(dayOfWeek.map((value) => (typeof value === 'number' ? value % 7 : value))),
      lastWeekdays: numbers(
        dayOfWeek.flatMap((value) => (typeof value === 'string' ? [Number.parseInt(value, 10) % 7] : [])),
      ),
      nthWeekday: fields.dayOfWeek.nthDay,
    };
  } catch (error) {
    return (error as Error).message;
  }
}

describe('cron field expansion (property)', () => {
  it('reads every expression as cron-parser reads its canonical form, which cron-parser may refuse only for duplicates', () => {
    fc.assert(
      fc.property(cronFieldsArb, (fields) => {
        const expression = fields.join(' ');
        const parsed = parseCronExpression(expression);
        const canonical = canonicalCronExpression(expression);
        const reference = cronParserReading(canonical);
        if (typeof reference === 'string') {
          expect(reference).toBe('Invalid explicit day of month definition');
          expect(parsed.ok || parsed.problem).toMatch(/it never fires/);
          return;
        }
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const schedule = parsed.value;
        // cron-parser drops days no chosen month has (31 with April alone); they never match anyway.
        const longestMonth = Math.max(
          ...valuesOf(schedule.months).map(
            (month) => [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month] ?? 0,
          ),
        );
        const existingDays = (days: readonly number[]) => days.filter((day) => day <= longestMonth);
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
        }).toEqual({ ...reference, daysOfMonth: existingDays(reference.daysOfMonth) });
        const original = cronParserReading(expression);
        if (typeof original === 'string') expect(original).toMatch(/duplicate values found/);
      }),
      { numRuns: 1_000 },
    );
  });
});
