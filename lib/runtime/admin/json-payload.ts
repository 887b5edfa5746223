import type { JsonValue } from '../../core/json';
import { LIMITS } from '../../core/limits';
import { storableJsonProblem } from '../../core/storable-json';

/** What is wrong with a payload, or undefined when it can be stored and sent as is. */
export function payloadProblem(value: unknown): string | undefined {
  return storableJsonProblem(value, LIMITS.payloadBytes)?.message;
}

export function isStorablePayload(value: unknown): value is JsonValue {
  return payloadProblem(value) === undefined;
}
