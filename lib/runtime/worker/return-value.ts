import type { JsonValue } from '../../core/json';
import { LIMITS } from '../../core/limits';
import { jsonPathSuffix, storableJsonProblem } from '../../core/storable-json';

export type CheckedReturnValue = { ok: true; value: JsonValue | undefined } | { ok: false; problem: string };

/**
 * Accepts what the store keeps unchanged, by the same rules as payloads (see `storableJsonProblem`),
 * within `LIMITS.returnValueBytes`; `undefined` means "no return value".
 */
export function checkReturnValue(value: unknown): CheckedReturnValue {
  if (value === undefined) return { ok: true, value: undefined };
  const problem = storableJsonProblem(value, LIMITS.returnValueBytes);
  if (problem)
    return { ok: false, problem: `return value${jsonPathSuffix(problem.path)}: ${problem.message}` };
  return { ok: true, value: value as JsonValue };
}
