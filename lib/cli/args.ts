import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './command';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs returns for flags, read through `text`, `flag` and `list`. */
export type FlagValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

export function text(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(values: FlagValues, name: string): boolean {
  return values[name] === true;
}

export function list(values: FlagValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Flags every command accepts. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Strict node:util parseArgs: an unknown flag or a flag without its value is a usage error
 * (exit 2) that names the flag.
 */
export function parseFlags<T extends Options>(args: readonly string[], options: T) {
  return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
}

/** A flag holding JSON (`--payload '{"team":"ops"}'`); bad JSON is a usage error naming the flag. */
export function jsonFlag(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--${flag}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
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

/**
 * A flag whose value is an admin API number (`--jitter 30s`, `--limit 20`): converted when it reads
 * as one, otherwise sent as typed, so the admin API reports the problem with the field's rules.
 */
export function secondsField(text: string): number | string {
  return durationSeconds(text) ?? text;
}

export function numberField(text: string): number | string {
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

/** The one positional argument a subcommand takes (`sundial schedules get <id>`). */
export function onePositional(positionals: readonly string[], what: string, usage: string): string {
  const [value, ...extra] = positionals;
  if (value === undefined) throw new UsageError(`give the ${what}: ${usage}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}': ${usage}`);
  return value;
}

export function noPositionals(positionals: readonly string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
}

/** Drops the fields left undefined, so a request carries only what the user gave. */
export function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
