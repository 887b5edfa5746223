import { InvalidArgumentError } from '@commander-js/extra-typings';
import { isKnownTimeZone } from '../core/triggers';

/**
 * Parsers of option values (commander `argParser`s): each turns the text after a flag into the value
 * the command uses, or throws `InvalidArgumentError`, which commander reports as
 * `error: option '--count <n>' argument '0' is invalid. Expected a whole number from 1 to 1000.` (exit 2).
 */

/** A flag holding JSON (`--payload '{"team":"ops"}'`). */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(
      `Not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
}

/** A whole number from `min` to `max`, for flags the CLI itself uses (`--count`, `--port`). */
export function wholeNumberFrom(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max)) {
      throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    }
    return value;
  };
}

/** Collects a repeatable flag (`--tag a --tag b`) into a list. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** An IANA time zone the CLI shows times in (`--timezone Europe/Berlin`). */
export function displayZone(text: string): string {
  if (!isKnownTimeZone(text)) {
    throw new InvalidArgumentError("Unknown time zone; use an IANA name such as 'Europe/Berlin'.");
  }
  return text;
}

/** A conflict policy: `do-nothing` is read as `do_nothing`; the admin API checks the value. */
export function policyValue(text: string): string {
  return text.replace(/-/g, '_');
}

const DURATION = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNIT_SECONDS = [604_800, 86_400, 3_600, 60, 1];

/**
 * Seconds from `90`, `90s`, `10m`, `1h30m`, `2d`, `1w`; undefined for anything else.
 *
 * @example
 * durationSeconds('1h30m'); // 5400
 */
export function durationSeconds(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const match = DURATION.exec(text);
  if (!match || text === '') return undefined;
  return UNIT_SECONDS.reduce((total, unit, index) => total + Number(match[index + 1] ?? 0) * unit, 0);
}

/** The longest duration a flag takes (100 years): a date that far from now is still one JavaScript can show. */
const MAX_DURATION_SECONDS = 100 * 365 * 86_400;
const TOO_LONG = 'Too long; at most 100 years (5200w).';

/** `--in 10m`: a delay in seconds. */
export function delaySeconds(text: string): number {
  const seconds = durationSeconds(text);
  if (seconds === undefined) throw new InvalidArgumentError('Not a duration; use e.g. 30s, 10m or 2h.');
  if (seconds > MAX_DURATION_SECONDS) throw new InvalidArgumentError(TOO_LONG);
  return seconds;
}

/** `--since 24h` (that long ago) or an instant: a duration is checked here, an instant by the admin API. */
export function sinceValue(text: string): string {
  const seconds = durationSeconds(text);
  if (seconds !== undefined && seconds > MAX_DURATION_SECONDS) throw new InvalidArgumentError(TOO_LONG);
  return text;
}

/**
 * A flag whose value is an admin API number of seconds (`--jitter 30s`): converted when it reads
 * as a duration, otherwise sent as typed, so the admin API reports the problem with the field's rules.
 */
export function secondsField(text: string): number | string {
  return durationSeconds(text) ?? text;
}

/** The value of a flag that clears a field: `--misfire-grace none`, `--max-attempts none`. */
export const NONE = 'none';

/**
 * `none` as the admin API's `null`. Parsers keep `none` as typed: commander turns a parser's `null`
 * into `''`, so the mapping happens when the request is built.
 */
export function noneAsNull<Value>(value: Value): Value | null {
  return value === NONE ? null : value;
}

/** `--misfire-grace none`: no start deadline; anything else is seconds. */
export function graceField(text: string): number | string {
  return text === NONE ? NONE : secondsField(text);
}

/** An admin API number (`--limit 20`, `--limit -5`): sent as a number when it reads as one, else as typed. */
export function numberField(text: string): number | string {
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

/** Drops the fields left undefined, so a request carries only what the user gave. */
export function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
