import type { JsonValue } from '../../core/json';
import { jsonByteLength, LIMITS } from '../../core/limits';
import { formatPath } from './issues';

/**
 * Payloads are stored as DynamoDB maps, which nest at most 32 levels and hold numbers of magnitude
 * at least 1e-130; the SDK's document mapping refuses numbers beyond ±(2^53 - 1) (it could not read
 * them back exactly). Checking here means the store never refuses what the API accepted.
 */
export const PAYLOAD_MAX_DEPTH = 30;
const SMALLEST_STORABLE_NUMBER = 1e-130;
/** DynamoDB refuses map keys (attribute names) of 64 KiB or more. */
const MAX_KEY_BYTES = 65_535;

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
      const longKey = keys.find((key) => Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES);
      if (longKey !== undefined) {
        return {
          path: [...path, longKey],
          message: `must not be a key longer than ${MAX_KEY_BYTES} bytes (UTF-8)`,
        };
      }
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
  if (magnitude > Number.MAX_SAFE_INTEGER || (magnitude !== 0 && magnitude < SMALLEST_STORABLE_NUMBER)) {
    return `must hold numbers from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, and of magnitude at least 1e-130 (pass other numbers as strings)`;
  }
  return undefined;
}
