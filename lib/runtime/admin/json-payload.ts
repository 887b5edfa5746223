import type { JsonValue } from '../../core/json';
import { jsonByteLength, LIMITS } from '../../core/limits';
import { formatPath } from './issues';

/**
 * Payloads are stored as DynamoDB maps, which nest at most 32 levels and hold numbers of magnitude
 * 1e-130 to below 1e126; checking here means the store never refuses what the API accepted.
 */
export const PAYLOAD_MAX_DEPTH = 30;
const LARGEST_STORABLE_NUMBER = 9.99e125;
const SMALLEST_STORABLE_NUMBER = 1e-130;

/** What is wrong with a payload, and where inside it (`['list', 1, 'key']`; empty for the whole payload). */
export interface PayloadProblem {
  path: (string | number)[];
  message: string;
}

/**
 * `__proto__` is refused as a key: JSON.parse makes it an own key, but DynamoDB's document marshaller
 * assigns keys one by one, so it would drop it (the write then fails), and reading such a map back
 * would set the prototype of the object handed to the handler.
 */
const UNSTORABLE_KEY = '__proto__';

/** The first problem of a payload, or undefined when it can be stored and sent as is. */
export function findPayloadProblem(value: unknown): PayloadProblem | undefined {
  const shape = jsonShapeProblem(value, []);
  if (shape) return shape;
  const bytes = jsonByteLength(value);
  if (bytes > LIMITS.payloadBytes) {
    return {
      path: [],
      message: `must be at most ${LIMITS.payloadBytes} bytes as UTF-8 JSON (got ${bytes}); store large data elsewhere (S3) and pass its key`,
    };
  }
  return undefined;
}

/** What is wrong with a payload (naming where inside it), or undefined when it can be stored as is. */
export function payloadProblem(value: unknown): string | undefined {
  const problem = findPayloadProblem(value);
  if (!problem) return undefined;
  return problem.path.length ? `${formatPath(problem.path)}: ${problem.message}` : problem.message;
}

export function isStorablePayload(value: unknown): value is JsonValue {
  return findPayloadProblem(value) === undefined;
}

function jsonShapeProblem(value: unknown, path: (string | number)[]): PayloadProblem | undefined {
  const problem = (message: string) => ({ path, message });
  if (path.length > PAYLOAD_MAX_DEPTH)
    return problem(`must not nest deeper than ${PAYLOAD_MAX_DEPTH} levels`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number': {
      const message = numberProblem(value);
      return message === undefined ? undefined : problem(message);
    }
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) return firstProblem(value.entries(), path);
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) {
        return problem('must be JSON: objects, arrays, strings, numbers, booleans and null only');
      }
      const keys = Object.keys(value);
      if (keys.includes('')) return problem('must not have empty object keys');
      if (keys.includes(UNSTORABLE_KEY)) {
        return {
          path: [...path, UNSTORABLE_KEY],
          message: 'must not be a key named __proto__ (it cannot be stored faithfully); rename it',
        };
      }
      return firstProblem(Object.entries(value), path);
    }
    default:
      return problem('must be JSON: objects, arrays, strings, numbers, booleans and null only');
  }
}

function firstProblem(
  entries: Iterable<[string | number, unknown]>,
  path: (string | number)[],
): PayloadProblem | undefined {
  for (const [key, item] of entries) {
    const problem = jsonShapeProblem(item, [...path, key]);
    if (problem) return problem;
  }
  return undefined;
}

function numberProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'must be JSON: numbers must be finite';
  const magnitude = Math.abs(value);
  if (magnitude > LARGEST_STORABLE_NUMBER || (magnitude !== 0 && magnitude < SMALLEST_STORABLE_NUMBER)) {
    return 'must hold numbers of magnitude 1e-130 to 9.99e125 only (pass larger or smaller numbers as strings)';
  }
  return undefined;
}
