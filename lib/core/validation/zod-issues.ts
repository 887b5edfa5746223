import type { z } from 'zod';
import type { ValidationIssue } from '../errors';
import { isRecord } from '../json';
import { quote, shorten } from '../quote';
import { formatPath, joinPath } from './path';

type RawIssue = z.core.$ZodRawIssue;

/**
 * Parses `input` with a zod schema and words every problem the same way everywhere (admin requests,
 * triggers): the field's path under `path`, and what is allowed there. A schema's own message (its
 * `error` option) wins, except that a missing field always reads `is required`. An unknown field is
 * one issue of its own that lists the fields allowed beside it.
 *
 * @example
 * parseWithIssues(z.strictObject({ team: z.string() }), { team: 7, colour: 'blue' }, 'payload');
 * // { issues: [{ path: 'payload.team', message: 'must be a string (got 7)' },
 * //   { path: 'payload.colour', message: 'is not a known field; allowed fields: team' }] }
 */
export function parseWithIssues<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  path = '',
): { value: z.output<Schema> } | { issues: ValidationIssue[] } {
  const parsed = schema.safeParse(input, { reportInput: true, error: describeIssue });
  if (parsed.success) return { value: parsed.data };
  return { issues: parsed.error.issues.flatMap((issue) => toValidationIssues(issue, path)) };
}

function toValidationIssues(issue: z.core.$ZodIssue, prefix: string): ValidationIssue[] {
  const path = formatPath(issue.path, prefix);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: joinPath(path, shorten(key)), message: issue.message }));
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return [{ path, message: 'is required' }];
  return [{ path, message: issue.message }];
}

const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  object: 'an object',
  array: 'an array',
  boolean: 'true or false',
};

/** The message of an issue whose schema gave none (zod's per-parse error map); undefined leaves zod's. */
function describeIssue(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${EXPECTED_WORDS[issue.expected] ?? issue.expected} (got ${show(issue.input)})`;
    case 'invalid_union':
      return issue.discriminator === undefined ? undefined : discriminatorMessage(issue);
    case 'too_small':
      return boundMessage('least', issue.origin, Number(issue.minimum), issue.inclusive);
    case 'too_big':
      return boundMessage('most', issue.origin, Number(issue.maximum), issue.inclusive);
    case 'invalid_value':
      return `must be ${issue.values.map((allowed) => show(allowed)).join(' or ')} (got ${show(issue.input)})`;
    case 'unrecognized_keys':
      return unknownFieldMessage(issue.inst);
    default:
      return undefined;
  }
}

function discriminatorMessage(issue: Extract<RawIssue, { code: 'invalid_union' }>): string {
  const options = (issue as { options?: readonly unknown[] }).options ?? [];
  const allowed = `must be one of ${options.map(String).join(', ')}`;
  const owner = issue.input;
  const value = isRecord(owner) && issue.discriminator ? owner[issue.discriminator] : undefined;
  return value === undefined ? `is required: ${allowed}` : `${allowed} (got ${show(value)})`;
}

function boundMessage(side: 'least' | 'most', origin: string, bound: number, inclusive = true): string {
  if (origin === 'array' || origin === 'set')
    return `must hold at ${side} ${bound} item${bound === 1 ? '' : 's'}`;
  if (origin === 'string') return `must be at ${side} ${bound} character${bound === 1 ? '' : 's'}`;
  if (inclusive) return `must be at ${side} ${bound}`;
  return `must be ${side === 'least' ? 'greater' : 'less'} than ${bound}`;
}

function unknownFieldMessage(schema: unknown): string {
  const shape = (schema as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
  const allowed = shape ? Object.keys(shape) : [];
  return allowed.length > 0
    ? `is not a known field; allowed fields: ${allowed.join(', ')}`
    : 'is not a known field; no fields are allowed here';
}

/** A value a caller sent, as a message repeats it: strings quoted and shortened, containers by kind. */
function show(value: unknown): string {
  if (typeof value === 'string') return quote(value, 40);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}
