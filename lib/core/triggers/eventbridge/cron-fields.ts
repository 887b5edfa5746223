import { quote } from '../../quote';
import type { Parsed } from '../timestamps';

/**
 * EventBridge Scheduler's cron dialect (`cron(minutes hours day-of-month month day-of-week year)`),
 * parsed into lookup tables. It is not Sundial's cron: day-of-week counts 1-7 from Sunday, exactly
 * one of the two day fields is `?`, `W` and `LW` exist, and there is a year field (1970-2199).
 */

export const FIRST_YEAR = 1970;
export const LAST_YEAR = 2199;

/** Which days of a month fire: one of these, decided by whichever day field is not `?`. */
export type DayRule =
  | { kind: 'every' }
  /** Index 1-31. */
  | { kind: 'days'; days: readonly boolean[] }
  | { kind: 'last' }
  | { kind: 'lastWeekday' }
  /** `15W`: the weekday nearest the 15th, within the month. */
  | { kind: 'nearestWeekday'; day: number }
  /** Index 0-6, 0 = Sunday. */
  | { kind: 'weekdays'; weekdays: readonly boolean[] }
  /** `5L`: the last Thursday; weekday 0-6, 0 = Sunday. */
  | { kind: 'lastOf'; weekday: number }
  /** `3#2`: the second Tuesday. */
  | { kind: 'nth'; weekday: number; nth: number };

export interface EventBridgeCron {
  /** Index 0-59. */
  readonly minutes: readonly boolean[];
  /** Index 0-23. */
  readonly hours: readonly boolean[];
  /** Index 1-12. */
  readonly months: readonly boolean[];
  /** Index `year - FIRST_YEAR`. */
  readonly years: readonly boolean[];
  readonly day: DayRule;
}

interface FieldRule {
  label: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const MINUTES: FieldRule = { label: 'minutes', min: 0, max: 59 };
const HOURS: FieldRule = { label: 'hours', min: 0, max: 23 };
const DAY_OF_MONTH: FieldRule = { label: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldRule = { label: 'month', min: 1, max: 12, names: MONTH_NAMES };
const DAY_OF_WEEK: FieldRule = { label: 'day-of-week', min: 1, max: 7, names: WEEKDAY_NAMES };
const YEAR: FieldRule = { label: 'year', min: FIRST_YEAR, max: LAST_YEAR };

export const FIELD_NAMES = 'minutes hours day-of-month month day-of-week year';

/**
 * The six fields of a `cron(…)` body, or the first problem in EventBridge's own terms.
 *
 * @example
 * parseEventBridgeCronFields('0 10 ? * MON-FRI *'); // ok; .value.day is { kind: 'weekdays', … }
 * parseEventBridgeCronFields('0 10 * * MON *'); // { ok: false, problem: "… write '?' in one of them …" }
 */
export function parseEventBridgeCronFields(body: string): Parsed<EventBridgeCron> {
  const fields = body.trim() === '' ? [] : body.trim().split(/\s+/);
  if (fields.length !== 6) return { ok: false, problem: fieldCountProblem(fields.length) };
  const [minutes = '', hours = '', dayOfMonth = '', month = '', dayOfWeek = '', year = ''] = fields;
  const minuteTable = expandList(minutes, MINUTES);
  if (!minuteTable.ok) return minuteTable;
  const hourTable = expandList(hours, HOURS);
  if (!hourTable.ok) return hourTable;
  const monthTable = expandList(month, MONTH);
  if (!monthTable.ok) return monthTable;
  const day = dayRule(dayOfMonth, dayOfWeek, fields);
  if (!day.ok) return day;
  const yearTable = expandList(year, YEAR);
  if (!yearTable.ok) return yearTable;
  return {
    ok: true,
    value: {
      minutes: minuteTable.value,
      hours: hourTable.value,
      months: monthTable.value,
      years: yearTable.value.slice(FIRST_YEAR),
      day: day.value,
    },
  };
}

function fieldCountProblem(count: number): string {
  const expected = `EventBridge cron has 6 fields (${FIELD_NAMES})`;
  if (count === 5) return `it has 5 fields; ${expected}: add the year field, usually '*'`;
  if (count === 7) return `it has 7 fields; ${expected} and no seconds field`;
  return `it has ${count} field${count === 1 ? '' : 's'}; ${expected}`;
}

/** The day rule from the two day fields, exactly one of which must be `?`. */
function dayRule(dayOfMonth: string, dayOfWeek: string, fields: readonly string[]): Parsed<DayRule> {
  const monthIsAny = dayOfMonth === '?';
  const weekIsAny = dayOfWeek === '?';
  if (monthIsAny && weekIsAny) {
    return {
      ok: false,
      problem: `day-of-month and day-of-week are both '?'; exactly one of them must be '?' (write '*' in the other to fire every day)`,
    };
  }
  if (!monthIsAny && !weekIsAny) {
    const suggestion = [...fields];
    suggestion[dayOfWeek === '*' ? 4 : 2] = '?';
    return {
      ok: false,
      problem: `day-of-month (${quote(dayOfMonth)}) and day-of-week (${quote(dayOfWeek)}) cannot both be set; exactly one of them must be '?', e.g. cron(${suggestion.join(' ')})`,
    };
  }
  return weekIsAny ? dayOfMonthRule(dayOfMonth) : dayOfWeekRule(dayOfWeek);
}

function dayOfMonthRule(text: string): Parsed<DayRule> {
  const upper = text.toUpperCase();
  if (upper === '*') return { ok: true, value: { kind: 'every' } };
  if (upper === 'L') return { ok: true, value: { kind: 'last' } };
  if (upper === 'LW') return { ok: true, value: { kind: 'lastWeekday' } };
  if (upper.endsWith('W')) {
    const day = upper.slice(0, -1);
    const value = /^\d+$/.test(day) ? Number(day) : Number.NaN;
    if (!(value >= 1 && value <= 31)) {
      return {
        ok: false,
        problem: `${quote(text)} is not allowed in the day-of-month field: 'W' follows one day 1-31 (15W = the weekday nearest the 15th) or 'L' (LW = the last weekday of the month), and stands alone`,
      };
    }
    return { ok: true, value: { kind: 'nearestWeekday', day: value } };
  }
  if (/[LW]/.test(upper)) {
    return {
      ok: false,
      problem: `${quote(text)} is not allowed in the day-of-month field: 'L' (last day of the month), 'LW' and '15W' each stand alone, not in a list or range`,
    };
  }
  const days = expandList(text, DAY_OF_MONTH);
  return days.ok ? { ok: true, value: { kind: 'days', days: days.value } } : days;
}

function dayOfWeekRule(text: string): Parsed<DayRule> {
  const upper = text.toUpperCase();
  if (upper === '*') return { ok: true, value: { kind: 'every' } };
  if (upper === 'L') return { ok: true, value: { kind: 'weekdays', weekdays: weekdayTable([6]) } };
  if (upper.includes('#')) {
    const [weekday = '', nth = '', ...rest] = upper.split('#');
    const value = fieldValue(weekday, DAY_OF_WEEK);
    if (rest.length > 0 || typeof value === 'string' || !/^[1-5]$/.test(nth)) {
      return {
        ok: false,
        problem: `${quote(text)} is not allowed in the day-of-week field: write <weekday>#<1-5> alone (3#2 or TUE#2 = the second Tuesday of the month; 1 = SUN … 7 = SAT)`,
      };
    }
    return { ok: true, value: { kind: 'nth', weekday: value - 1, nth: Number(nth) } };
  }
  if (/L$/.test(upper) && !upper.includes(',')) {
    const value = fieldValue(upper.slice(0, -1), DAY_OF_WEEK);
    if (typeof value === 'number') return { ok: true, value: { kind: 'lastOf', weekday: value - 1 } };
  }
  if (upper.includes('L')) {
    return {
      ok: false,
      problem: `${quote(text)} is not allowed in the day-of-week field: 'L' stands alone (L = Saturday, the last day of the week) or follows one weekday (5L or THUL = the last Thursday of the month); 1 = SUN … 7 = SAT`,
    };
  }
  const weekdays = expandList(text, DAY_OF_WEEK);
  if (!weekdays.ok) return weekdays;
  return {
    ok: true,
    value: { kind: 'weekdays', weekdays: weekdays.value.slice(1) },
  };
}

function weekdayTable(weekdays: readonly number[]): boolean[] {
  const table = new Array<boolean>(7).fill(false);
  for (const weekday of weekdays) table[weekday] = true;
  return table;
}

/** A field of `*`, values, ranges and steps as a table indexed by value (size `max + 1`). */
function expandList(text: string, rule: FieldRule): Parsed<boolean[]> {
  const table = new Array<boolean>(rule.max + 1).fill(false);
  for (const item of text.split(',')) {
    const problem = addItem(item, rule, table);
    if (problem !== undefined) return { ok: false, problem };
  }
  return { ok: true, value: table };
}

function addItem(item: string, rule: FieldRule, table: boolean[]): string | undefined {
  if (item === '') return `the ${rule.label} field has an empty list item`;
  if (item === '?') {
    return `'?' is only allowed in day-of-month or day-of-week, alone (${rule.label} field: ${quote(item)})`;
  }
  const [base = '', step, ...rest] = item.split('/');
  if (rest.length > 0) return `${quote(item)} has more than one '/' (${rule.label} field)`;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) {
    return `the step in ${quote(item)} must be a whole number of at least 1 (${rule.label} field)`;
  }
  let low = rule.min;
  let high = rule.max;
  if (base !== '*') {
    const bounds = base.split('-');
    if (bounds.length > 2)
      return `${quote(base)} is not a range; write low-high, e.g. 1-5 (${rule.label} field)`;
    const values: number[] = [];
    for (const bound of bounds) {
      const value = fieldValue(bound, rule);
      if (typeof value === 'string') return value;
      values.push(value);
    }
    low = values[0] ?? rule.min;
    // `5/15` runs from 5 to the end of the field; a plain `5` is just 5.
    high = values[1] ?? (step === undefined ? low : rule.max);
    if (high < low) {
      return `the range ${quote(base)} must go from low to high (${rule.label} field); wrap-around ranges are not supported`;
    }
  }
  for (let value = low; value <= high; value += Number(step ?? 1)) table[value] = true;
  return undefined;
}

/** The number a value stands for (`5`, `FRI`, `jan`), or a problem naming the field and what it allows. */
function fieldValue(text: string, rule: FieldRule): number | string {
  const allowed = rule.names
    ? `${rule.min}-${rule.max} or ${rule.names[0]}-${rule.names[rule.names.length - 1]}`
    : `${rule.min}-${rule.max}`;
  const sundayNote = rule === DAY_OF_WEEK ? '; 1 = SUN … 7 = SAT' : '';
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value >= rule.min && value <= rule.max) return value;
    return `${quote(text)} is not a valid ${rule.label} value (allowed ${allowed}${sundayNote})`;
  }
  const index = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return rule.min + index;
  return `${quote(text)} is not a valid ${rule.label} value (allowed ${allowed}${sundayNote})`;
}
