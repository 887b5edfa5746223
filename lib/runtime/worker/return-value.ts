import type { JsonValue } from '../../core/json';
import { LIMITS } from '../../core/limits';
import { storableJsonProblem } from '../../core/storable-json';
import { formatPath } from '../../core/validation';

export type CheckedReturnValue = { ok: true; value: JsonValue | undefined } | { ok: false; problem: string };

/**
 * Accepts what the store keeps unchanged, by the same rules as payloads (see `storableJsonProblem`),
 * within `LIMITS.returnValueBytes`; `undefined` means "no return value".
 */
export function checkReturnValue(value: unknown): CheckedReturnValue {
  if (value === undefined) return { ok: true, value: undefined };
  const problem = storableJsonProblem(value, LIMITS.returnValueBytes);
  if (problem)
    return { ok: false, problem: `${formatPath(problem.path, 'return value')}: ${problem.message}` };
  return { ok: true, value: value as JsonValue };
}
