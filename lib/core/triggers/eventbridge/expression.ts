import { LIMITS } from '../../limits';
import { quote, shorten } from '../../quote';
import {
  daysFromCivil,
  daysInMonth,
  MS_PER_DAY,
  MS_PER_HOUR,
  MS_PER_MINUTE,
  MS_PER_SECOND,
} from '../calendar';
import type { Parsed } from '../timestamps';
import { type EventBridgeCron, parseEventBridgeCronFields } from './cron-fields';
import { nextEventBridgeWallTime } from './cron-search';

/** An EventBridge Scheduler schedule expression, parsed. */
export type EventBridgeExpression =
  | { kind: 'cron'; cron: EventBridgeCron }
  /** `rate(5 minutes)`: elapsed time from the schedule's start. */
  | { kind: 'rate'; periodMs: number }
  /** `at(2026-05-01T09:30:00)`: one local date-time, as a wall time (see `calendar.ts`). */
  | { kind: 'at'; wallTime: number };

export const EXPRESSION_EXAMPLES =
  "'cron(0 10 ? * MON-FRI *)', 'rate(5 minutes)' or 'at(2026-05-01T09:30:00)'";

const RATE_UNITS: Readonly<Record<string, number>> = {
  minute: MS_PER_MINUTE,
  hour: MS_PER_HOUR,
  day: MS_PER_DAY,
};
/** The longest rate accepted, as for interval triggers: 100 years. */
const MAX_RATE_MS = 100 * 366 * MS_PER_DAY;
const AT_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/**
 * True when `text` is written as an EventBridge Scheduler expression (`cron(…)`, `rate(…)`,
 * `at(…)`), valid or not: what a command line reads it as.
 */
export function isEventBridgeExpression(text: string): boolean {
  return /^(cron|rate|at)\(/.test(text.trim());
}

/**
 * Parses `cron(…)`, `rate(…)` or `at(…)` as EventBridge Scheduler reads them; a problem is worded
 * in that dialect's terms and names the expression.
 *
 * @example
 * parseEventBridgeExpression('rate(5 minutes)'); // { ok: true, value: { kind: 'rate', periodMs: 300000 } }
 * parseEventBridgeExpression('rate(1 minutes)'); // { ok: false, problem: "… write rate(1 minute) …" }
 */
export function parseEventBridgeExpression(expression: string): Parsed<EventBridgeExpression> {
  const limit = LIMITS.cronExpressionLength;
  if (expression.length > limit) {
    return {
      ok: false,
      problem: `must be at most ${limit} characters (it has ${expression.length}); a schedule expression needs far fewer`,
    };
  }
  const match = /^(cron|rate|at)\((.*)\)$/s.exec(expression);
  if (match === null) {
    return {
      ok: false,
      problem: `${quote(expression)} is not an EventBridge Scheduler expression; write ${EXPRESSION_EXAMPLES}`,
    };
  }
  const [, kind, body = ''] = match;
  const parsed = kind === 'cron' ? cronBody(body) : kind === 'rate' ? rateBody(body) : atBody(body);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    problem: `${quote(expression)} is not a valid EventBridge ${kind}() expression: ${shorten(parsed.problem, 300)}`,
  };
}

function cronBody(body: string): Parsed<EventBridgeExpression> {
  const parsed = parseEventBridgeCronFields(body);
  if (!parsed.ok) return parsed;
  if (nextEventBridgeWallTime(parsed.value, 0) === undefined) {
    return {
      ok: false,
      problem:
        'it never fires: no date matches its day, month and year fields (February has at most 29 days; April, June, September and November have 30; a month has four or five of each weekday)',
    };
  }
  return { ok: true, value: { kind: 'cron', cron: parsed.value } };
}

function rateBody(body: string): Parsed<EventBridgeExpression> {
  const match = /^(\S+) (\S+)$/.exec(body);
  const help =
    'write rate(<value> <unit>), e.g. rate(1 hour) or rate(5 minutes); units are minute(s), hour(s), day(s)';
  if (match === null) return { ok: false, problem: help };
  const [, valueText = '', unitText = ''] = match;
  if (!/^\d+$/.test(valueText) || Number(valueText) < 1) {
    return {
      ok: false,
      problem: `the value ${quote(valueText)} must be a whole number of at least 1; ${help}`,
    };
  }
  const value = Number(valueText);
  const singular = unitText.endsWith('s') ? unitText.slice(0, -1) : unitText;
  const unitMs = RATE_UNITS[singular];
  if (unitMs === undefined) return { ok: false, problem: `unknown unit ${quote(unitText)}; ${help}` };
  const expected = value === 1 ? singular : `${singular}s`;
  if (unitText !== expected) {
    return {
      ok: false,
      problem: `write rate(${value} ${expected}): the unit is singular when the value is 1 and plural otherwise`,
    };
  }
  if (value * unitMs > MAX_RATE_MS) return { ok: false, problem: 'the rate must be at most 100 years' };
  return { ok: true, value: { kind: 'rate', periodMs: value * unitMs } };
}

function atBody(body: string): Parsed<EventBridgeExpression> {
  const match = AT_PATTERN.exec(body);
  const [, year, month, day, hour, minute, second] = (match ?? []).map(Number);
  if (
    match === null ||
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined ||
    second === undefined ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return {
      ok: false,
      problem:
        "write at(yyyy-mm-ddThh:mm:ss), a local date-time without offset read in the trigger's timezone, e.g. at(2026-05-01T09:30:00)",
    };
  }
  const wallTime =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    hour * MS_PER_HOUR +
    minute * MS_PER_MINUTE +
    second * MS_PER_SECOND;
  return { ok: true, value: { kind: 'at', wallTime } };
}
