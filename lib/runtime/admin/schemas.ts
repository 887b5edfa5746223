import { z } from 'zod';
import { LIMITS } from '../../core/limits';
import { JOB_STATUSES } from '../../core/model/job';
import { isJobId, JOB_ID_RULE } from '../../core/model/job-id';
import {
  booleanFlag,
  coalesce,
  conflictPolicy,
  cursor,
  identifier,
  instant,
  listLimit,
  maxJitterSeconds,
  misfireGraceSeconds,
  payload,
  tags,
  taskId,
  triggerInput,
  wholeNumber,
} from './fields';

/**
 * The parameters of each action (the request minus `action`), snake_case as on the wire. Strict:
 * an unknown field is an error that names it. The TypeScript types are inferred from these.
 */

export const addScheduleParams = z.strictObject({
  id: identifier.optional(),
  task: taskId,
  trigger: triggerInput,
  payload: payload.optional(),
  coalesce: coalesce.optional(),
  misfire_grace_seconds: misfireGraceSeconds.optional(),
  max_jitter_seconds: maxJitterSeconds.optional(),
  tags: tags.optional(),
  paused: booleanFlag.optional(),
  conflict_policy: conflictPolicy.optional(),
});
export type AddScheduleParams = z.output<typeof addScheduleParams>;

export const scheduleIdParams = z.strictObject({ id: identifier });
export type ScheduleIdParams = z.output<typeof scheduleIdParams>;

export const listSchedulesParams = z.strictObject({
  task: taskId.optional(),
  tag: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(LIMITS.tagLength, { error: `must be at most ${LIMITS.tagLength} characters` })
    .optional(),
  paused: booleanFlag.optional(),
  limit: listLimit,
  cursor: cursor.optional(),
});
export type ListSchedulesParams = z.output<typeof listSchedulesParams>;

export const updateScheduleParams = z.strictObject({
  id: identifier,
  task: taskId.optional(),
  trigger: triggerInput.optional(),
  payload: payload.optional(),
  coalesce: coalesce.optional(),
  misfire_grace_seconds: misfireGraceSeconds.optional(),
  max_jitter_seconds: maxJitterSeconds.optional(),
  tags: tags.optional(),
  expected_version: wholeNumber(1, Number.MAX_SAFE_INTEGER).optional(),
});
export type UpdateScheduleParams = z.output<typeof updateScheduleParams>;

/** The fields of `update_schedule` that change the schedule (all but `id` and `expected_version`). */
export const SCHEDULE_CHANGE_FIELDS = [
  'task',
  'trigger',
  'payload',
  'coalesce',
  'misfire_grace_seconds',
  'max_jitter_seconds',
  'tags',
] as const;

export const resumeScheduleParams = z.strictObject({
  id: identifier,
  replay_missed: booleanFlag.default(false),
});
export type ResumeScheduleParams = z.output<typeof resumeScheduleParams>;

export const MAX_PREVIEW_COUNT = 1000;

export const previewScheduleParams = z.strictObject({
  id: identifier.optional(),
  trigger: triggerInput.optional(),
  from: instant.optional(),
  count: wholeNumber(1, MAX_PREVIEW_COUNT).default(10),
});
export type PreviewScheduleParams = z.output<typeof previewScheduleParams>;

export const addJobParams = z.strictObject({
  task: taskId,
  payload: payload.optional(),
  run_at: instant.optional(),
  job_id: identifier.optional(),
  conflict_policy: conflictPolicy.optional(),
});
export type AddJobParams = z.output<typeof addJobParams>;

export const addJobsParams = z.strictObject({
  jobs: z
    .array(z.unknown(), { error: 'must be an array of jobs, each with the fields of add_job' })
    .min(1, { error: 'must hold at least one job' })
    .max(LIMITS.bulkJobs, { error: `must hold at most ${LIMITS.bulkJobs} jobs; split larger batches` }),
});
export type AddJobsParams = z.output<typeof addJobsParams>;

export const jobIdParams = z.strictObject({ job_id: identifierOrFireId() });
export type JobIdParams = z.output<typeof jobIdParams>;

export const listJobsParams = z.strictObject({
  schedule_id: identifier.optional(),
  task: taskId.optional(),
  status: z.enum(JOB_STATUSES, { error: `must be one of ${JOB_STATUSES.join(', ')}` }).optional(),
  limit: listLimit,
  cursor: cursor.optional(),
});
export type ListJobsParams = z.output<typeof listJobsParams>;

export const listTasksParams = z.strictObject({});

/**
 * Job ids include the ids of schedule fires and run-now jobs (`nightly@1774771200000`,
 * `nightly@run-…`), so reading a job accepts one `@` between two identifiers.
 */
function identifierOrFireId() {
  return z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .refine(isJobId, { error: JOB_ID_RULE });
}
