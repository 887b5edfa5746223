import { documentSizeBytes } from './document-size';
import type { JsonValue } from './json';
import { jsonByteLength, LIMITS } from './limits';

/**
 * What the store can keep and give back unchanged: payloads and return values are stored as DynamoDB
 * maps, which nest at most 32 levels, hold numbers of magnitude at least 1e-130, and name keys with at
 * most 64 KiB; the SDK's document mapping refuses numbers beyond ±(2^53 − 1) (it could not read them
 * back exactly). One rule set for both, so the store never refuses what the admin API or a handler's
 * return was allowed to pass.
 */
export const STORABLE_MAX_DEPTH = 30;
const SMALLEST_STORABLE_NUMBER = 1e-130;
/** DynamoDB refuses map keys (attribute names) of 64 KiB or more. */
const MAX_KEY_BYTES = 65_535;
/**
 * `__proto__` is refused as a key: JSON.parse makes it an own key, but DynamoDB's document marshaller
 * assigns keys one by one, so it would drop it (the write then fails), and reading such a map back
 * would set the prototype of the object handed to the handler.
 */
const UNSTORABLE_KEY = '__proto__';

/** Why a value cannot be stored: where (`['items', 2, 'price']`; empty for the value itself) and what is allowed. */
export interface StorableJsonProblem {
  path: (string | number)[];
  message: string;
}

const NOT_JSON = 'must be JSON: objects, arrays, strings, numbers, booleans and null only';

/**
 * The first reason `value` cannot be stored as JSON of at most `maxBytes` (UTF-8), or undefined when it
 * can. Members whose value is `undefined` are left out, as `JSON.stringify` does.
 */
export function storableJsonProblem(value: unknown, maxBytes: number): StorableJsonProblem | undefined {
  const shape = shapeProblem(value, [], new Set());
  if (shape) return shape;
  const bytes = jsonByteLength(value);
  if (bytes > maxBytes) {
    return {
      path: [],
      message: `must be at most ${maxBytes} bytes as UTF-8 JSON (got ${bytes}); store large data elsewhere (S3) and pass its key`,
    };
  }
  // A job item holds a payload and a return value together: each must fit as stored too, where a list of
  // small numbers takes about half as much again as its JSON.
  const stored = documentSizeBytes(value);
  if (stored > maxBytes) {
    return {
      path: [],
      message: `must be at most ${maxBytes} bytes as stored (got ${stored}: lists of many small numbers take about 1.5 bytes per byte of JSON); store large data elsewhere (S3) and pass its key`,
    };
  }
  return undefined;
}

/** The first reason a payload cannot be stored and sent as is (within `LIMITS.payloadBytes`), or undefined. */
export function payloadProblem(value: unknown): StorableJsonProblem | undefined {
  return storableJsonProblem(value, LIMITS.payloadBytes);
}

export function isStorablePayload(value: unknown): value is JsonValue {
  return payloadProblem(value) === undefined;
}

function shapeProblem(
  value: unknown,
  path: (string | number)[],
  seen: Set<object>,
): StorableJsonProblem | undefined {
  if (path.length > STORABLE_MAX_DEPTH) {
    return { path, message: `must not nest deeper than ${STORABLE_MAX_DEPTH} levels` };
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return numberProblem(value, path);
    case 'object':
      return value === null ? undefined : containerProblem(value, path, seen);
    default:
      return { path, message: NOT_JSON };
  }
}

function containerProblem(
  value: object,
  path: (string | number)[],
  seen: Set<object>,
): StorableJsonProblem | undefined {
  if (seen.has(value)) return { path, message: 'must not refer to itself (a cycle)' };
  const isArray = Array.isArray(value);
  if (!isArray) {
    const keyProblem = objectKeyProblem(value, path);
    if (keyProblem) return keyProblem;
  }
  seen.add(value);
  try {
    for (const [key, item] of Object.entries(value)) {
      if (!isArray && item === undefined) continue;
      const problem = shapeProblem(item, [...path, isArray ? Number(key) : key], seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function objectKeyProblem(value: object, path: (string | number)[]): StorableJsonProblem | undefined {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return { path, message: NOT_JSON };
  const keys = Object.keys(value);
  if (keys.includes('')) return { path, message: 'must not have empty object keys' };
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
  return undefined;
}

function numberProblem(value: number, path: (string | number)[]): StorableJsonProblem | undefined {
  if (!Number.isFinite(value)) return { path, message: 'must be JSON: numbers must be finite' };
  const magnitude = Math.abs(value);
  if (magnitude > Number.MAX_SAFE_INTEGER || (magnitude !== 0 && magnitude < SMALLEST_STORABLE_NUMBER)) {
    return {
      path,
      message: `must hold numbers from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, and of magnitude at least 1e-130 (pass other numbers as strings)`,
    };
  }
  return undefined;
}
