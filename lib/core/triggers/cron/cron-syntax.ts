import { quote, shorten } from '../../quote';

/**
 * Checks a cron expression against the syntax Sundial supports and explains the first problem
 * in words, saying what is allowed. cron-parser, which expands what passes, accepts more (`H`, `?`,
 * `@weekdays`, …) and words its errors for its own developers; this runs first.
 */

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldRule {
  label: string;
  min: number;
  max: number;
  /** Names standing for `min`, `min + 1`, … */
  names?: readonly string[];
}

const SECOND: FieldRule = { label: 'second', min: 0, max: 59 };
const MINUTE: FieldRule = { label: 'minute', min: 0, max: 59 };
const HOUR: FieldRule = { label: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldRule = { label: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldRule = { label: 'month', min: 1, max: 12, names: MONTH_NAMES };
const DAY_OF_WEEK: FieldRule = { label: 'day-of-week', min: 0, max: 7, names: WEEKDAY_NAMES };
const FIELD_RULES = [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK] as const;

const FIVE_FIELDS = 'minute hour day-of-month month day-of-week';
const FIELD_COUNT_HELP = `expected 5 fields (${FIVE_FIELDS}) or 6 (second ${FIVE_FIELDS})`;

/** The shortcuts of Vixie cron, as 5-field expressions. `@reboot` has no meaning here. */
export const CRON_SHORTCUTS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** An expression split into its six fields, seconds first (`0` when the expression has five). */
export type CronFieldTexts = readonly [string, string, string, string, string, string];

/**
 * Splits `expression` into six fields or says why it cannot be.
 *
 * @example
 * splitCronFields('*\/5 * * * *'); // { ok: true, fields: ['0', '*\/5', '*', '*', '*', '*'] }
 */
export function splitCronFields(
  expression: string,
): { ok: true; fields: CronFieldTexts } | { ok: false; problem: string } {
  const trimmed = expression.trim();
  if (trimmed.startsWith('@')) {
    const expanded = CRON_SHORTCUTS[trimmed.toLowerCase()];
    if (expanded === undefined) {
      return {
        ok: false,
        problem: `unknown shortcut ${quote(trimmed)}; allowed: ${Object.keys(CRON_SHORTCUTS).join(', ')}`,
      };
    }
    return splitCronFields(expanded);
  }
  const atoms = trimmed === '' ? [] : trimmed.split(/\s+/);
  if (atoms.length === 7) {
    return { ok: false, problem: `it has 7 fields, but a year field is not supported; ${FIELD_COUNT_HELP}` };
  }
  if (atoms.length !== 5 && atoms.length !== 6) {
    return {
      ok: false,
      problem: `it has ${atoms.length} field${atoms.length === 1 ? '' : 's'}; ${FIELD_COUNT_HELP}`,
    };
  }
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = atoms.length === 5 ? ['0', ...atoms] : atoms;
  return {
    ok: true,
    fields: [second ?? '', minute ?? '', hour ?? '', dayOfMonth ?? '', month ?? '', dayOfWeek ?? ''],
  };
}

/** The first problem with any of the six fields, in words, or undefined when the syntax is fine. */
export function findCronFieldProblem(fields: CronFieldTexts): string | undefined {
  for (const [index, rule] of FIELD_RULES.entries()) {
    const problem = fieldProblem(fields[index] ?? '', rule);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function fieldProblem(text: string, rule: FieldRule): string | undefined {
  const items = text.split(',');
  if (items.some((item) => item.includes('#')) && items.length > 1) {
    return `'#' cannot be combined with other values in the ${rule.label} field (${quote(text)})`;
  }
  for (const item of items) {
    const problem = itemProblem(item, rule);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function itemProblem(item: string, rule: FieldRule): string | undefined {
  if (item === '') return `the ${rule.label} field has an empty list item`;
  if (item.includes('?')) return `'?' is not supported (${rule.label} field); use '*'`;
  if (/^H/i.test(item)) return `'H' (hashed values) is not supported (${rule.label} field)`;
  if (/W$/i.test(item) && rule === DAY_OF_MONTH) {
    return `'W' (nearest weekday) is not supported (${rule.label} field)`;
  }
  if (/L/i.test(withoutNames(item, rule))) return lastProblem(item, rule);
  if (item.includes('#')) return nthProblem(item, rule);
  const [base = '', step, ...rest] = item.split('/');
  if (rest.length > 0) return `${quote(item)} has more than one '/' (${rule.label} field)`;
  if (step !== undefined) {
    if (!/^\d+$/.test(step)) return `step ${quote(step)} must be a whole number (${rule.label} field)`;
    if (Number(step) < 1) return 'step must be at least 1';
  }
  if (base === '*') return undefined;
  const bounds = base.split('-');
  if (bounds.length > 2)
    return `${quote(base)} is not a range; write low-high, e.g. 1-5 (${rule.label} field)`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = fieldValue(bound, rule);
    if (typeof value === 'string') return value;
    values.push(value);
  }
  const [low = 0, high = low] = values;
  if (high < low) {
    return `range ${shorten(base)} must go from low to high (${rule.label} field); wrap-around ranges are not supported`;
  }
  return undefined;
}

function withoutNames(item: string, rule: FieldRule): string {
  return rule.names ? item.replace(new RegExp(rule.names.join('|'), 'gi'), '') : item;
}

/** `L` alone in day-of-month (last day), `<weekday>L` in day-of-week (its last occurrence in the month). */
function lastProblem(item: string, rule: FieldRule): string | undefined {
  if (rule === DAY_OF_MONTH && item.toUpperCase() === 'L') return undefined;
  if (rule === DAY_OF_WEEK && /^(\d+|[A-Z]{3})L$/i.test(item)) {
    const value = fieldValue(item.slice(0, -1), rule);
    return typeof value === 'string' ? value : undefined;
  }
  return `${quote(item)} is not allowed: 'L' may only stand alone in the day-of-month field (last day of the month) or follow one weekday in the day-of-week field (5L = last Friday)`;
}

function nthProblem(item: string, rule: FieldRule): string | undefined {
  const [weekday = '', nth = ''] = item.split('#');
  if (rule !== DAY_OF_WEEK || !/^[1-5]$/.test(nth) || /[-/]/.test(weekday)) {
    return `${quote(item)} is not allowed: write <weekday>#<1-5> in the day-of-week field (5#3 = third Friday)`;
  }
  const value = fieldValue(weekday, rule);
  return typeof value === 'string' ? value : undefined;
}

/** The number a field value (`5`, `FRI`, `jan`) stands for, or a problem. */
function fieldValue(text: string, rule: FieldRule): number | string {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < rule.min || value > rule.max) {
      return `${shorten(text)} is not a valid ${rule.label} (allowed ${rule.min}-${rule.max})`;
    }
    return value;
  }
  const nameIndex = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  if (nameIndex >= 0) return rule.min + nameIndex;
  if (rule.names) {
    const names = rule.names;
    return `${quote(text)} is not a valid ${rule.label}: use ${rule.min}-${rule.max} or ${names[0]}-${names[names.length - 1]}`;
  }
  return `${quote(text)} is not a valid ${rule.label} (allowed ${rule.min}-${rule.max})`;
}
