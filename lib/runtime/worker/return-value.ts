import type { JsonValue } from '../../core/json';
import { jsonByteLength, LIMITS } from '../../core/limits';

export type CheckedReturnValue = { ok: true; value: JsonValue | undefined } | { ok: false; problem: string };

/**
 * Accepts what survives JSON unchanged (plain objects, arrays, strings, finite numbers, booleans, null)
 * within `LIMITS.returnValueBytes`; `undefined` means "no return value".
 */
export function checkReturnValue(value: unknown): CheckedReturnValue {
  if (value === undefined) return { ok: true, value: undefined };
  const problem = jsonProblem(value, 'return value', new Set());
  if (problem) return { ok: false, problem };
  const bytes = jsonByteLength(value);
  if (bytes > LIMITS.returnValueBytes) {
    return {
      ok: false,
      problem: `return value is ${bytes} bytes as JSON; the limit is ${LIMITS.returnValueBytes} bytes (store large results elsewhere and return a reference)`,
    };
  }
  return { ok: true, value: value as JsonValue };
}

function jsonProblem(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path} is ${value}, not a JSON number`;
  if (typeof value !== 'object') return `${path} is a ${typeof value}, which JSON cannot hold`;
  if (seen.has(value)) return `${path} refers to itself (a cycle)`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const problem = jsonProblem(item, `${path}[${index}]`, seen);
        if (problem) return problem;
      }
      return undefined;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return `${path} is a ${value.constructor?.name ?? 'class instance'}, not a plain object`;
    }
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const problem = jsonProblem(item, `${path}.${key}`, seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}
