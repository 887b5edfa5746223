import type { JsonValue } from '../../core/json';
import { LIMITS } from '../../core/limits';
import { type StorableJsonProblem, storableJsonProblem } from '../../core/storable-json';
import { formatPath } from './issues';

/** What is wrong with a payload, and where inside it (`['list', 1, 'key']`; empty for the whole payload). */
export type PayloadProblem = StorableJsonProblem;

/** The first problem of a payload, or undefined when it can be stored and sent as is. */
export function findPayloadProblem(value: unknown): PayloadProblem | undefined {
  return storableJsonProblem(value, LIMITS.payloadBytes);
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
