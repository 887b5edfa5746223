import type { EpochMs } from '../clock';
import { quote } from '../quote';
import { daysFromCivil, daysInMonth, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE } from './calendar';

/** Either the parsed value or a sentence saying what is wrong with the text and what to write instead. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const INSTANT_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))?$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

const INSTANT_EXAMPLE = "e.g. '2026-03-29T02:30:00Z' or '2026-03-29T02:30:00+01:00'";

/**
 * Parses an ISO-8601 date-time that names one instant: it must carry `Z` or a `±HH:MM` offset.
 * A date-time without one is rejected as ambiguous rather than guessed in some zone.
 *
 * @example
 * parseIsoInstant('2026-03-29T01:00:00Z'); // { ok: true, value: 1774746000000 }
 * parseIsoInstant('2026-03-29T01:00:00'); // { ok: false, problem: "'2026-03-29T01:00:00' has no UTC offset…" }
 */
export function parseIsoInstant(text: string): Parsed<EpochMs> {
  const match = INSTANT_PATTERN.exec(text);
  if (!match) {
    return { ok: false, problem: `${quote(text)} is not an ISO-8601 date-time; write ${INSTANT_EXAMPLE}` };
  }
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '0',
    fraction = '',
    zulu,
    sign,
    offsetHour,
    offsetMinute,
  ] = match;
  if (!zulu && !sign) {
    return {
      ok: false,
      problem: `${quote(text)} has no UTC offset, so it is ambiguous: add 'Z' for UTC or an offset such as '+01:00'`,
    };
  }
  const date = civilDate(Number(year), Number(month), Number(day));
  const hours = Number(hour);
  const minutes = Number(minute);
  const seconds = Number(second);
  const offsetHours = Number(offsetHour ?? 0);
  const offsetMinutes = Number(offsetMinute ?? 0);
  if (
    date === undefined ||
    hours > 23 ||
    minutes > 59 ||
    seconds > 59 ||
    offsetHours > 18 ||
    offsetMinutes > 59
  ) {
    return { ok: false, problem: `${quote(text)} is not a valid date-time; write ${INSTANT_EXAMPLE}` };
  }
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * MS_PER_HOUR + offsetMinutes * MS_PER_MINUTE);
  const wallTime =
    date * MS_PER_DAY + hours * MS_PER_HOUR + minutes * MS_PER_MINUTE + seconds * 1_000 + milliseconds;
  return { ok: true, value: wallTime - offsetMs };
}

/**
 * Parses a calendar date `YYYY-MM-DD` into days since 1970-01-01.
 *
 * @example
 * parseIsoDate('1970-01-02'); // { ok: true, value: 1 }
 */
export function parseIsoDate(text: string): Parsed<number> {
  const match = DATE_PATTERN.exec(text);
  const date = match ? civilDate(Number(match[1]), Number(match[2]), Number(match[3])) : undefined;
  if (date === undefined) {
    return { ok: false, problem: `${quote(text)} is not a valid date; write YYYY-MM-DD, e.g. '2026-01-31'` };
  }
  return { ok: true, value: date };
}

function civilDate(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day);
}
