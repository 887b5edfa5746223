import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { compileTrigger, parseTrigger } from '../../../../lib/core/triggers';

/**
 * EventBridge cron fire times against a brute-force reference written from EventBridge's
 * documentation, not from the implementation: expressions are generated together with the set of
 * values each field means, and the reference walks real time minute by minute (luxon for the
 * zone), firing at a matching wall time the first time the clocks show it. A wall time in a gap is
 * never shown, so it never fires; one in an overlap fires at its first showing only.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A field as text plus the values it means. */
interface Field {
  text: string;
  values: ReadonlySet<number>;
}

const NAMES_OF_MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const NAMES_OF_DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

function inclusive(low: number, high: number, step = 1): Set<number> {
  const values = new Set<number>();
  for (let value = low; value <= high; value += step) values.add(value);
  return values;
}

/**
 * One list item of a field `min..max`: a value, a range, a step, `*`; names sometimes. Values are
 * drawn up to `drawMax` (to favour the small hours), steps still run to the end of the field.
 */
function itemArb(min: number, max: number, names?: readonly string[], drawMax = max): fc.Arbitrary<Field> {
  const show = (value: number, useName: boolean) =>
    useName && names ? (names[value - min] ?? '') : String(value);
  const bounded = fc.integer({ min, max: drawMax });
  return fc.oneof(
    fc.constant({ text: '*', values: inclusive(min, max) }),
    fc
      .tuple(bounded, fc.boolean())
      .map(([value, useName]) => ({ text: show(value, useName), values: new Set([value]) })),
    fc.tuple(bounded, bounded, fc.boolean()).map(([a, b, useName]) => {
      const [low, high] = [Math.min(a, b), Math.max(a, b)];
      return { text: `${show(low, useName)}-${show(high, useName)}`, values: inclusive(low, high) };
    }),
    fc.tuple(bounded, fc.integer({ min: 1, max: max - min + 2 })).map(([start, step]) => ({
      text: `${start}/${step}`,
      values: inclusive(start, max, step),
    })),
    fc
      .integer({ min: 1, max: max - min + 1 })
      .map((step) => ({ text: `*/${step}`, values: inclusive(min, max, step) })),
  );
}

function listArb(min: number, max: number, names?: readonly string[], drawMax = max): fc.Arbitrary<Field> {
  return fc.array(itemArb(min, max, names, drawMax), { minLength: 1, maxLength: 3 }).map((items) => ({
    text: items.map((item) => item.text).join(','),
    values: new Set(items.flatMap((item) => [...item.values])),
  }));
}

/** A date test: the day fields' meaning, given the date. */
type DayTest = (year: number, month: number, day: number) => boolean;

const monthLength = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const weekdayOf = (year: number, month: number, day: number) =>
  new Date(Date.UTC(year, month - 1, day)).getUTCDay();
const isWorkday = (year: number, month: number, day: number) => ![0, 6].includes(weekdayOf(year, month, day));

/** The Monday-Friday day of the month nearest `target`, never leaving the month. */
function nearestWorkday(year: number, month: number, target: number): number {
  const days = [...inclusive(1, monthLength(year, month))].filter((day) => isWorkday(year, month, day));
  return days.reduce((best, day) => (Math.abs(day - target) < Math.abs(best - target) ? day : best));
}

const dayOfMonthArb: fc.Arbitrary<{ text: string; test: DayTest }> = fc.oneof(
  listArb(1, 31).map(({ text, values }) => ({
    text,
    test: (_y: number, _m: number, d: number) => values.has(d),
  })),
  fc.constant({ text: 'L', test: (y: number, m: number, d: number) => d === monthLength(y, m) }),
  fc.constant({
    text: 'LW',
    test: (y: number, m: number, d: number) =>
      isWorkday(y, m, d) &&
      [...inclusive(d + 1, monthLength(y, m))].every((later) => !isWorkday(y, m, later)),
  }),
  fc.integer({ min: 1, max: 31 }).map((target) => ({
    text: `${target}W`,
    test: (y: number, m: number, d: number) =>
      target <= monthLength(y, m) && d === nearestWorkday(y, m, target),
  })),
);

const dayOfWeekArb: fc.Arbitrary<{ text: string; test: DayTest }> = fc.oneof(
  // 1 = SUN … 7 = SAT, while Date counts 0 = Sunday.
  listArb(1, 7, NAMES_OF_DAYS).map(({ text, values }) => ({
    text,
    test: (y: number, m: number, d: number) => values.has(weekdayOf(y, m, d) + 1),
  })),
  fc.tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 5 })).map(([weekday, nth]) => ({
    text: `${weekday}#${nth}`,
    test: (y: number, m: number, d: number) =>
      weekdayOf(y, m, d) + 1 === weekday &&
      [...inclusive(1, d)].filter((day) => weekdayOf(y, m, day) + 1 === weekday).length === nth,
  })),
  fc.integer({ min: 1, max: 7 }).map((weekday) => ({
    text: `${weekday}L`,
    test: (y: number, m: number, d: number) =>
      weekdayOf(y, m, d) + 1 === weekday && d + 7 > monthLength(y, m),
  })),
);

const dayFieldsArb = fc.oneof(
  dayOfMonthArb.map(({ text, test }) => ({ dayOfMonth: text, dayOfWeek: '?', test })),
  dayOfWeekArb.map(({ text, test }) => ({ dayOfMonth: '?', dayOfWeek: text, test })),
);

/** Hours lean towards the small hours, where offsets change. */
const hourArb = fc.oneof(listArb(0, 23), listArb(0, 23, undefined, 4));

interface Expression {
  text: string;
  matches(wallTime: number): boolean;
  firesOnSomeDate(): boolean;
}

/** Every day, for expressions aimed at the offset changes themselves. */
const everyDayArb = fc.constant({ dayOfMonth: '*', dayOfWeek: '?', test: () => true });

const expressionArb = (days: typeof dayFieldsArb, hours = hourArb): fc.Arbitrary<Expression> =>
  fc
    .record({
      minutes: listArb(0, 59),
      hours,
      days,
      months: fc.oneof(fc.constant({ text: '*', values: inclusive(1, 12) }), listArb(1, 12, NAMES_OF_MONTHS)),
      years: fc.constantFrom(
        { text: '*', values: inclusive(1970, 2199) },
        { text: '2026-2028', values: inclusive(2026, 2028) },
        { text: '2027', values: new Set([2027]) },
      ),
    })
    .map(({ minutes, hours, days, months, years }) => ({
      text: `cron(${minutes.text} ${hours.text} ${days.dayOfMonth} ${months.text} ${days.dayOfWeek} ${years.text})`,
      matches(wallTime: number) {
        const date = new Date(wallTime);
        const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
        return (
          minutes.values.has(date.getUTCMinutes()) &&
          hours.values.has(date.getUTCHours()) &&
          months.values.has(month) &&
          years.values.has(year) &&
          days.test(year, month, day)
        );
      },
      /** Whether any date of its years matches its day and month fields (an expression that never fires is refused). */
      firesOnSomeDate() {
        for (const year of years.values)
          for (const month of months.values)
            for (let day = 1; day <= new Date(Date.UTC(year, month, 0)).getUTCDate(); day++)
              if (days.test(year, month, day)) return true;
        return false;
      },
    }));

/** Offsets by UTC hour: the zones tested change offset on whole hours only. */
const offsets = new Map<string, number>();
function wallTimeAt(instant: number, zone: string): number {
  const key = `${zone} ${Math.floor(instant / HOUR)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = DateTime.fromMillis(instant, { zone }).offset * MINUTE;
    offsets.set(key, offset);
  }
  return instant + offset;
}

/**
 * The first `count` fires at or after `from` within `horizon`, minute by minute. Days that cannot
 * match are crossed in one step, resuming three hours before the next local midnight so that
 * every wall time of a matching day is seen from the first instant it is shown.
 */
function referenceFires(
  expression: Expression,
  zone: string,
  from: number,
  count: number,
  horizon: number,
): number[] {
  const fires: number[] = [];
  let highestShown = Number.NEGATIVE_INFINITY;
  let instant = Math.floor((from - 3 * HOUR) / MINUTE) * MINUTE;
  const dayCanMatch = dayTester(expression);
  while (instant <= from + horizon && fires.length < count) {
    const wallTime = wallTimeAt(instant, zone);
    const toMidnight = DAY - (wallTime % DAY);
    if (!dayCanMatch(wallTime) && toMidnight > 4 * HOUR) {
      instant += toMidnight - 3 * HOUR;
      continue;
    }
    if (wallTime > highestShown) {
      if (instant >= from && expression.matches(wallTime)) fires.push(instant);
      highestShown = wallTime;
    }
    instant += MINUTE;
  }
  return fires;
}

/** Whether any minute of a wall time's day matches, remembered per day. */
function dayTester(expression: Expression): (wallTime: number) => boolean {
  const known = new Map<number, boolean>();
  return (wallTime) => {
    const dayStart = Math.floor(wallTime / DAY) * DAY;
    let result = known.get(dayStart);
    if (result === undefined) {
      result = false;
      for (let minute = 0; minute < 24 * 60 && !result; minute++)
        result = expression.matches(dayStart + minute * MINUTE);
      known.set(dayStart, result);
    }
    return result;
  };
}

/** Start instants in 2026-2027, half of them in the day before an offset change. */
const TRANSITIONS = [
  '2026-03-08T07:00:00Z',
  '2026-11-01T06:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2027-03-14T07:00:00Z',
  '2027-10-31T01:00:00Z',
].map(Date.parse);
const fromArb = fc.oneof(
  fc
    .tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -DAY, max: HOUR }))
    .map(([at, shift]) => at + shift),
  fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
);

/** The first three fires within 35 days, from the implementation. */
function actualFires(expression: Expression, zone: string, from: number, horizon: number): number[] {
  const source = compileTrigger(
    parseTrigger({ type: 'eventbridge', expression: expression.text, timezone: zone }),
  );
  const fires: number[] = [];
  for (let next = source.next(from); next !== undefined && next <= from + horizon && fires.length < 3; ) {
    fires.push(next);
    next = source.next(next + 1);
  }
  return fires;
}

const iso = (fires: readonly number[]) => fires.map((fire) => new Date(fire).toISOString());
const HORIZON = 35 * DAY;

describe('eventbridge cron fire times match a minute-by-minute reference', () => {
  it('in UTC and in zones with DST changes, any day fields', () => {
    fc.assert(
      fc.property(
        expressionArb(dayFieldsArb),
        fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin'),
        fromArb,
        (expression, zone, from) => {
          if (!expression.firesOnSomeDate()) {
            expect(() => actualFires(expression, zone, from, HORIZON)).toThrow(/it never fires/);
            return;
          }
          expect(iso(actualFires(expression, zone, from, HORIZON))).toEqual(
            iso(referenceFires(expression, zone, from, 3, HORIZON)),
          );
        },
      ),
      { numRuns: 150 },
    );
  }, 30_000);

  it('refuses an expression whose fifth weekday never occurs in its one year', () => {
    // February 2027 has four Sundays.
    expect(() =>
      parseTrigger({ type: 'eventbridge', expression: 'cron(0 0 ? 2 1#5 2027)', timezone: 'UTC' }),
    ).toThrow(/it never fires/);
  });

  it('across the offset changes themselves: gaps skipped, repeated wall times fired once', () => {
    fc.assert(
      fc.property(
        expressionArb(everyDayArb, listArb(0, 23, undefined, 3)),
        fc.constantFrom('America/New_York', 'Europe/Berlin'),
        fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -6 * HOUR, max: HOUR })),
        (expression, zone, [transition, shift]) => {
          const from = transition + shift;
          expect(iso(actualFires(expression, zone, from, HORIZON))).toEqual(
            iso(referenceFires(expression, zone, from, 3, HORIZON)),
          );
        },
      ),
      { numRuns: 150 },
    );
  }, 30_000);
});
