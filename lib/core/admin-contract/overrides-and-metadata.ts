import * as z from 'zod';
import { isRecord } from '../json';
import { METADATA_KEY_PATTERN, METADATA_LIMITS } from '../model/metadata';
import { presentOverrides, RUN_SETTING_BOUNDS, type RunSettingOverrides } from '../model/run-settings';
import { wholeNumber } from './fields';

/**
 * The request fields of per-schedule and per-job overrides and metadata (docs/admin-api.md,
 * "Overrides and metadata"), and how they read on the wire.
 */

/** What is wrong with a metadata key, if anything. */
function metadataKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'metadata keys must not be empty';
  if (key.length > METADATA_LIMITS.keyLength)
    return `metadata keys must be at most ${METADATA_LIMITS.keyLength} characters`;
  if (!METADATA_KEY_PATTERN.test(key)) return 'metadata keys may contain only letters, digits and . _ : -';
  return undefined;
}

/**
 * A JSON object may hold `__proto__` as its own key; zod's record drops it silently (copied into a plain
 * object it would set the prototype), so it is refused before.
 */
const noProtoKey = z.unknown().superRefine((value, context) => {
  if (isRecord(value) && Object.hasOwn(value, '__proto__')) {
    context.addIssue({ code: 'custom', message: 'metadata keys must not be __proto__', path: ['__proto__'] });
  }
});

/** String key-value metadata, bounded: see `METADATA_LIMITS`. */
const metadataRecord = z
  .record(
    z.string(),
    z.string({ error: 'must be a string' }).max(METADATA_LIMITS.valueLength, {
      error: `must be at most ${METADATA_LIMITS.valueLength} characters`,
    }),
    { error: 'must be an object of string values, e.g. {"team": "billing"}' },
  )
  .superRefine(
    (value, context) => {
      const keys = Object.keys(value);
      if (keys.length > METADATA_LIMITS.keys) {
        context.addIssue({ code: 'custom', message: `must hold at most ${METADATA_LIMITS.keys} keys` });
      }
      for (const key of keys) {
        const problem = metadataKeyProblem(key);
        if (problem) context.addIssue({ code: 'custom', message: problem, path: [key] });
      }
    },
    {
      // Also when a value is wrong, so every problem is reported at once; never for a non-object.
      when: (payload) => isRecord(payload.value),
    },
  );

export const metadata = noProtoKey.pipe(metadataRecord);

export const MAX_DESCRIPTION_LENGTH = 512;

export const description = z
  .string({ error: 'must be a string' })
  .max(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });

function bounded(name: keyof typeof RUN_SETTING_BOUNDS) {
  const { min, max } = RUN_SETTING_BOUNDS[name];
  return wholeNumber(min, max);
}

/** The override fields of a request; `null` (in `update_schedule`) clears one. */
export const overrideFields = {
  max_attempts: bounded('maxAttempts').nullable().optional(),
  backoff_seconds: bounded('backoffSeconds').nullable().optional(),
  timeout_seconds: bounded('timeoutSeconds').nullable().optional(),
  result_ttl_seconds: bounded('resultTtlSeconds').nullable().optional(),
};

export const OVERRIDE_FIELD_NAMES = Object.keys(overrideFields) as ReadonlyArray<keyof typeof overrideFields>;

type OverrideParams = { [Field in keyof typeof overrideFields]?: number | null | undefined };

/** The overrides a request sets; undefined when it sets none. */
export function overridesOfParams(params: OverrideParams): RunSettingOverrides | undefined {
  return presentOverrides({
    maxAttempts: params.max_attempts ?? undefined,
    backoffSeconds: params.backoff_seconds ?? undefined,
    timeoutSeconds: params.timeout_seconds ?? undefined,
    resultTtlSeconds: params.result_ttl_seconds ?? undefined,
  });
}

/**
 * `current` with the override fields of an update applied: a number sets, `null` clears, an absent
 * field stays. Undefined when the update touches no override field; `null` when none is left.
 */
export function changedOverrides(
  current: RunSettingOverrides | undefined,
  params: OverrideParams,
): RunSettingOverrides | null | undefined {
  if (!OVERRIDE_FIELD_NAMES.some((field) => params[field] !== undefined)) return undefined;
  const pick = (value: number | null | undefined, old: number | undefined) =>
    value === null ? undefined : (value ?? old);
  return (
    presentOverrides({
      maxAttempts: pick(params.max_attempts, current?.maxAttempts),
      backoffSeconds: pick(params.backoff_seconds, current?.backoffSeconds),
      timeoutSeconds: pick(params.timeout_seconds, current?.timeoutSeconds),
      resultTtlSeconds: pick(params.result_ttl_seconds, current?.resultTtlSeconds),
    }) ?? null
  );
}

/** The overrides on the wire: each field, null when not overridden. */
export interface WireOverrides {
  max_attempts: number | null;
  backoff_seconds: number | null;
  timeout_seconds: number | null;
  result_ttl_seconds: number | null;
}

export function wireOverrides(overrides: RunSettingOverrides | undefined): WireOverrides {
  return {
    max_attempts: overrides?.maxAttempts ?? null,
    backoff_seconds: overrides?.backoffSeconds ?? null,
    timeout_seconds: overrides?.timeoutSeconds ?? null,
    result_ttl_seconds: overrides?.resultTtlSeconds ?? null,
  };
}
