import type { z } from 'zod';
import type { ValidationIssue } from '../errors';
import { quote, shorten } from '../quote';
import { TRIGGER_FIELDS, TRIGGER_TYPES, type TriggerType } from './schema';

type ZodIssue = z.core.$ZodIssue;

const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  object: 'an object',
  array: 'an array',
  boolean: 'true or false',
};

/**
 * Rewrites zod's issues about a trigger as {@link ValidationIssue}s a user can act on: the field
 * path with array indices (`trigger.triggers[1].timezone`) and what is allowed there.
 *
 * @example
 * toValidationIssues(triggerSchema.safeParse({ type: 'crom' }).error.issues, { type: 'crom' }, 'trigger');
 * // [{ path: 'trigger.type', message: "must be one of cron, interval, calendar_interval, date, and, or (got 'crom')" }]
 */
export function toValidationIssues(
  issues: readonly ZodIssue[],
  input: unknown,
  basePath: string,
): ValidationIssue[] {
  return issues.flatMap((issue) => {
    const path = formatPath(basePath, issue.path);
    if (issue.code === 'unrecognized_keys') {
      const owner = valueAt(input, issue.path);
      return issue.keys.map((key) => ({
        path: `${path}.${shorten(key)}`,
        message: unknownFieldMessage(owner),
      }));
    }
    return [{ path, message: describeIssue(issue, valueAt(input, issue.path)) }];
  });
}

function describeIssue(issue: ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_union':
      if (issue.discriminator === undefined) return issue.message;
      return value === undefined
        ? `is required: must be one of ${TRIGGER_TYPES.join(', ')}`
        : `must be one of ${TRIGGER_TYPES.join(', ')} (got ${show(value)})`;
    case 'invalid_type':
      if (value === undefined) return 'is required';
      return `must be ${EXPECTED_WORDS[issue.expected] ?? issue.expected} (got ${show(value)})`;
    case 'too_small':
      if (issue.origin === 'array')
        return `must list at least ${issue.minimum} trigger${issue.minimum === 1 ? '' : 's'}`;
      return issue.inclusive === false
        ? `must be greater than ${issue.minimum}`
        : `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `must list at most ${issue.maximum} triggers`;
      return issue.inclusive === false
        ? `must be less than ${issue.maximum}`
        : `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return `must be ${issue.values.map((allowed) => show(allowed)).join(' or ')} (got ${show(value)})`;
    default:
      return issue.message;
  }
}

function unknownFieldMessage(owner: unknown): string {
  const type = isRecord(owner) ? owner.type : undefined;
  if (typeof type === 'string' && (TRIGGER_TYPES as readonly string[]).includes(type)) {
    return `is not a field of type '${type}'; allowed fields: ${TRIGGER_FIELDS[type as TriggerType].join(', ')}`;
  }
  return 'is not a known field';
}

/** `trigger` + `['triggers', 1, 'timezone']` → `trigger.triggers[1].timezone`. */
export function formatPath(basePath: string, segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    const name = shorten(String(segment));
    return path === '' ? name : `${path}.${name}`;
  }, basePath);
}

function valueAt(input: unknown, segments: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of segments) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (isRecord(value)) value = value[String(segment)];
    else return undefined;
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (typeof value === 'string') return quote(value, 40);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}
