import * as z from 'zod';
import type { EpochMs } from '../clock';
import type { JsonValue } from '../json';
import { LIMITS } from '../limits';
import { ID_PATTERN, ID_RULE, isJobId, JOB_ID_RULE } from '../model/job-id';
import { COALESCE_POLICIES, CONFLICT_POLICIES } from '../model/schedule';
import { payloadProblem } from '../storable-json';
import { parseIsoInstant } from '../triggers/timestamps';

/** The zod building blocks of the admin API's requests: each field's message says what is allowed. */

/** Schedule and job ids. `@` is excluded: it separates a schedule id from a fire time in job ids. */
export const identifier = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(LIMITS.idLength, { error: `must be at most ${LIMITS.idLength} characters` })
  .regex(ID_PATTERN, { error: ID_RULE });

/**
 * Job ids include the ids of schedule fires and run-now jobs (`nightly@1774771200000`,
 * `nightly@run-…`), so reading a job accepts one `@` between two identifiers.
 */
export const jobId = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .refine(isJobId, { error: JOB_ID_RULE });

/** A task id: checked against the registry afterwards, so only its form is checked here. */
export const taskId = z
  .string({ error: 'must be a string naming a task (a module in functions/)' })
  .min(1, { error: 'must not be empty' })
  .max(LIMITS.idLength, { error: `must be at most ${LIMITS.idLength} characters` });

export function wholeNumber(min: number, max: number) {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
}

export const booleanFlag = z.boolean({ error: 'must be true or false' });

export const coalesce = z.enum(COALESCE_POLICIES, {
  error: `must be one of ${COALESCE_POLICIES.join(', ')}`,
});

export const conflictPolicy = z.enum(CONFLICT_POLICIES, {
  error: `must be one of ${CONFLICT_POLICIES.join(', ')}`,
});

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** `null` means no start deadline. */
export const misfireGraceSeconds = wholeNumber(1, ONE_YEAR_SECONDS).nullable();

export const maxJitterSeconds = wholeNumber(0, LIMITS.maxJitterSeconds);

export const tag = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(LIMITS.tagLength, { error: `must be at most ${LIMITS.tagLength} characters` });

export const tags = z
  .array(tag, { error: 'must be an array of strings' })
  .max(LIMITS.tagsPerSchedule, { error: `must hold at most ${LIMITS.tagsPerSchedule} tags` })
  .transform((values) => [...new Set(values)]);

/** Any JSON the store and queue can carry, within the payload size limit. */
export const payload = z.unknown().transform((value, context): JsonValue => {
  const problem = payloadProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  return value as JsonValue;
});

/** An instant on the wire (ISO-8601 with `Z` or an offset, as in triggers), as epoch milliseconds. */
export const instant = z
  .string({ error: "must be an ISO-8601 date-time string, e.g. '2026-03-29T09:00:00Z'" })
  .transform((text, context): EpochMs => {
    const parsed = parseIsoInstant(text);
    if (parsed.ok) return parsed.value;
    context.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  });

/** Any value: the trigger is checked by `parseTrigger`, which names each problem's path. */
export const triggerInput = z.unknown();

export const listLimit = wholeNumber(1, 500).default(50);

export const cursor = z
  .string({ error: 'must be the cursor string returned by the previous page' })
  .min(1, { error: 'must not be empty' })
  .max(4096, { error: 'must be the cursor string returned by the previous page' });

/** How long a call waits for a job's result; bounded well inside the admin Lambda's timeout. */
export const resultWaitSeconds = z
  .number({ error: `must be a number of seconds from 0 to ${LIMITS.maxResultWaitSeconds}` })
  .min(0, { error: `must be a number of seconds from 0 to ${LIMITS.maxResultWaitSeconds}` })
  .max(LIMITS.maxResultWaitSeconds, {
    error: `must be at most ${LIMITS.maxResultWaitSeconds} seconds (the admin Lambda's timeout bounds a wait); ask again to wait longer`,
  });
