import { jsonByteLength } from './limits';

/**
 * What the store can keep and give back unchanged: payloads and return values are stored as DynamoDB
 * maps, which nest at most 32 levels and hold numbers of magnitude 1e-130 to below 1e126. One rule set
 * for both, so the store never refuses what the admin API or a handler's return was allowed to pass.
 */
export const STORABLE_MAX_DEPTH = 30;
const LARGEST_STORABLE_NUMBER = 9.99e125;
const SMALLEST_STORABLE_NUMBER = 1e-130;

/** Why a value cannot be stored: where (`.items[2].price`; empty for the value itself) and what is allowed. */
export interface StorableJsonProblem {
  path: string;
  message: string;
}

const NOT_JSON = 'must be JSON: objects, arrays, strings, numbers, booleans and null only';

/**
 * The first reason `value` cannot be stored as JSON of at most `maxBytes` (UTF-8), or undefined when it
 * can. Members whose value is `undefined` are left out, as `JSON.stringify` does.
 */
export function storableJsonProblem(value: unknown, maxBytes: number): StorableJsonProblem | undefined {
  const shape = shapeProblem(value, '', 0, new Set());
  if (shape) return shape;
  const bytes = jsonByteLength(value);
  if (bytes > maxBytes) {
    return {
      path: '',
      message: `must be at most ${maxBytes} bytes as UTF-8 JSON (got ${bytes}); store large data elsewhere (S3) and pass its key`,
    };
  }
  return undefined;
}

function shapeProblem(
  value: unknown,
  path: string,
  depth: number,
  seen: Set<object>,
): StorableJsonProblem | undefined {
  if (depth > STORABLE_MAX_DEPTH) {
    return { path, message: `must not nest deeper than ${STORABLE_MAX_DEPTH} levels` };
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return numberProblem(value, path);
    case 'object':
      return value === null ? undefined : containerProblem(value, path, depth, seen);
    default:
      return { path, message: NOT_JSON };
  }
}

function containerProblem(
  value: object,
  path: string,
  depth: number,
  seen: Set<object>,
): StorableJsonProblem | undefined {
  if (seen.has(value)) return { path, message: 'must not refer to itself (a cycle)' };
  const isArray = Array.isArray(value);
  if (!isArray) {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return { path, message: NOT_JSON };
    if (Object.hasOwn(value, '')) return { path, message: 'must not have empty object keys' };
  }
  seen.add(value);
  try {
    for (const [key, item] of Object.entries(value)) {
      if (!isArray && item === undefined) continue;
      const problem = shapeProblem(item, isArray ? `${path}[${key}]` : `${path}.${key}`, depth + 1, seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function numberProblem(value: number, path: string): StorableJsonProblem | undefined {
  if (!Number.isFinite(value)) return { path, message: 'must be JSON: numbers must be finite' };
  const magnitude = Math.abs(value);
  if (magnitude > LARGEST_STORABLE_NUMBER || (magnitude !== 0 && magnitude < SMALLEST_STORABLE_NUMBER)) {
    return {
      path,
      message:
        'must hold numbers of magnitude 1e-130 to 9.99e125 only (pass larger or smaller numbers as strings)',
    };
  }
  return undefined;
}
