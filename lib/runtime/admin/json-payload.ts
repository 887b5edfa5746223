import type { JsonValue } from '../../core/json';
import { jsonByteLength, LIMITS } from '../../core/limits';

/**
 * Payloads are stored as DynamoDB maps, which nest at most 32 levels and hold numbers of magnitude
 * 1e-130 to below 1e126; checking here means the store never refuses what the API accepted.
 */
export const PAYLOAD_MAX_DEPTH = 30;
const LARGEST_STORABLE_NUMBER = 9.99e125;
const SMALLEST_STORABLE_NUMBER = 1e-130;

/** What is wrong with a payload, or undefined when it can be stored and sent as is. */
export function payloadProblem(value: unknown): string | undefined {
  const shape = jsonShapeProblem(value, 0);
  if (shape) return shape;
  const bytes = jsonByteLength(value);
  if (bytes > LIMITS.payloadBytes) {
    return `must be at most ${LIMITS.payloadBytes} bytes as UTF-8 JSON (got ${bytes}); store large data elsewhere (S3) and pass its key`;
  }
  return undefined;
}

export function isStorablePayload(value: unknown): value is JsonValue {
  return payloadProblem(value) === undefined;
}

function jsonShapeProblem(value: unknown, depth: number): string | undefined {
  if (depth > PAYLOAD_MAX_DEPTH) return `must not nest deeper than ${PAYLOAD_MAX_DEPTH} levels`;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return numberProblem(value);
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) return firstProblem(value, depth);
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) {
        return 'must be JSON: objects, arrays, strings, numbers, booleans and null only';
      }
      const entries = Object.entries(value);
      if (entries.some(([key]) => key === '')) return 'must not have empty object keys';
      return firstProblem(
        entries.map(([, item]) => item),
        depth,
      );
    }
    default:
      return 'must be JSON: objects, arrays, strings, numbers, booleans and null only';
  }
}

function firstProblem(items: readonly unknown[], depth: number): string | undefined {
  for (const item of items) {
    const problem = jsonShapeProblem(item, depth + 1);
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
