import * as z from 'zod';
import { isoUtc } from '../instants';
import type { JsonValue } from '../json';
import { LIMITS } from '../limits';
import {
  JOB_STATUSES,
  type Job,
  type JobOrigin,
  type JobResult,
  type JobStatus,
  type ResultOutcome,
} from '../model/job';
import { DEFAULT_PRIORITY, PRIORITIES, type Priority } from '../model/priority';
import type { TaskWait } from '../model/task-waits';
import type { AdminResponse } from './errors';
import {
  conflictPolicy,
  cursor,
  identifier,
  instant,
  jobId,
  listLimit,
  misfireGraceSeconds,
  payload,
  resultWaitSeconds,
  taskId,
} from './fields';
import { metadata, overrideFields, type WireOverrides, wireOverrides } from './overrides-and-metadata';

/**
 * The job actions of the admin API: what each request takes, the job record on the wire, and what
 * each action answers (docs/admin-api.md, "Jobs").
 */

export const priority = z.enum(PRIORITIES, {
  error: `must be one of ${PRIORITIES.join(', ')}: a critical job starts before normal ones waiting for its task`,
});

export const addJobParams = z.strictObject({
  task: taskId,
  payload: payload.optional(),
  run_at: instant.optional(),
  job_id: identifier.optional(),
  conflict_policy: conflictPolicy.optional(),
  ...overrideFields,
  misfire_grace_seconds: misfireGraceSeconds.optional(),
  metadata: metadata.nullable().optional(),
  priority: priority.optional(),
});

export const addJobsParams = z.strictObject({
  jobs: z
    .array(z.unknown(), { error: 'must be an array of jobs, each with the fields of add_job' })
    .min(1, { error: 'must hold at least one job' })
    .max(LIMITS.bulkJobs, { error: `must hold at most ${LIMITS.bulkJobs} jobs; split larger batches` }),
});

export const jobIdParams = z.strictObject({ job_id: jobId });

export const jobResultParams = z.strictObject({ job_id: jobId, wait_seconds: resultWaitSeconds.optional() });

/** `run_job`: the fields of `add_job`, and how long to wait for the result. */
export const runJobParams = addJobParams.extend({ wait_seconds: resultWaitSeconds.optional() });

export const listJobsParams = z.strictObject({
  schedule_id: identifier.optional(),
  task: taskId.optional(),
  status: z.enum(JOB_STATUSES, { error: `must be one of ${JOB_STATUSES.join(', ')}` }).optional(),
  metadata: metadata.optional(),
  /** With `status` alone: jobs that finished at or after this instant. */
  since: instant.optional(),
  /** With `status` alone: jobs that finished before this instant. */
  until: instant.optional(),
  limit: listLimit,
  cursor: cursor.optional(),
});

/** A job's outcome as the admin API answers it. */
export interface WireJobResult {
  outcome: ResultOutcome;
  return_value?: JsonValue;
  error?: { type: string; message: string; stack?: string };
  started_at: string | null;
  finished_at: string;
  /** Seconds from start to finish; null when the job never started. */
  duration_seconds: number | null;
  attempt: number;
}

/** A job as the admin API answers it (its overrides are null where the task's setting applies). */
export interface WireJob extends WireOverrides {
  id: string;
  task: string;
  payload: JsonValue;
  origin: JobOrigin;
  schedule_id: string | null;
  fire_time: string | null;
  run_at: string;
  start_deadline: string | null;
  metadata: Record<string, string>;
  /** Present for `critical` jobs only. */
  priority?: Priority;
  attempt: number;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  result: WireJobResult | null;
  /** A retried job's earlier outcomes, oldest first (absent for a job never retried). */
  history?: WireJobResult[];
  /** When `cancel_job` asked the job to stop while it ran (absent unless it did). */
  cancel_requested_at?: string;
  /** For a job that has not started: the limits of its task without room now (absent: none). */
  waiting_on?: WireWait[];
}

/** A limit of a job's task that has no room now (`TaskWait`). */
export type WireWait =
  | { constraint: 'paused' }
  | { constraint: 'max_running_jobs'; running: number; limit: number }
  | { constraint: 'rate_limit'; next_start_at: string };

function wireWait(wait: TaskWait): WireWait {
  return wait.constraint === 'rate_limit'
    ? { constraint: 'rate_limit', next_start_at: isoUtc(wait.nextStartAt) }
    : wait;
}

function isoOrNull(instant: number | null): string | null {
  return instant === null ? null : isoUtc(instant);
}

export function wireJobResult(result: JobResult): WireJobResult {
  return {
    outcome: result.outcome,
    ...(result.returnValue !== undefined && { return_value: result.returnValue }),
    ...(result.error !== undefined && { error: result.error }),
    started_at: isoOrNull(result.startedAt),
    finished_at: isoUtc(result.finishedAt),
    duration_seconds: result.startedAt === null ? null : (result.finishedAt - result.startedAt) / 1000,
    attempt: result.attempt,
  };
}

/** The job as the admin API shows it; `waits`: what it waits on, for a job that has not started. */
export function wireJob(job: Job, waits: readonly TaskWait[] = []): WireJob {
  return {
    id: job.id,
    task: job.task,
    payload: job.payload,
    origin: job.origin,
    schedule_id: job.scheduleId,
    fire_time: isoOrNull(job.fireTime),
    run_at: isoUtc(job.runAt),
    start_deadline: isoOrNull(job.startDeadline),
    ...wireOverrides(job.overrides),
    metadata: job.metadata ?? {},
    ...(job.priority && job.priority !== DEFAULT_PRIORITY && { priority: job.priority }),
    attempt: job.attempt,
    status: job.status,
    created_at: isoUtc(job.createdAt),
    started_at: isoOrNull(job.startedAt),
    finished_at: isoOrNull(job.finishedAt),
    expires_at: isoOrNull(job.expiresAt),
    result: job.result === null ? null : wireJobResult(job.result),
    ...(job.history !== undefined && job.history.length > 0 && { history: job.history.map(wireJobResult) }),
    ...(job.cancelRequestedAt !== undefined && { cancel_requested_at: isoUtc(job.cancelRequestedAt) }),
    ...(waits.length > 0 && { waiting_on: waits.map(wireWait) }),
  };
}

/** What `add_job` answers, and each successful item of `add_jobs`. */
export interface AddedJob {
  status: 'added' | 'replaced' | 'kept';
  /**
   * `parked`: the job starts later than the queue can delay it and waits in the store for the tick.
   * `refused`: the queue refused its message for good; the job ended with a `MessageRefusedError` result.
   */
  queued: 'sent' | 'parked' | 'not_sent' | 'refused';
  job: WireJob;
}

/** What the job actions answer. */
export interface JobResults {
  add_job: AddedJob;
  add_jobs: { added: number; failed: number; results: AdminResponse<AddedJob>[] };
  get_job: { job: WireJob };
  list_jobs: { jobs: WireJob[]; cursor: string | null };
  get_job_result: { job_id: string; status: ResultOutcome; result: WireJobResult };
  cancel_job: { job: WireJob };
  /** The result once the job finished; else its current status and `result: null`. */
  run_job: { job_id: string; status: JobStatus; result: WireJobResult | null };
}

/** The request schema of each job action. */
export const JOB_REQUESTS = {
  add_job: addJobParams,
  add_jobs: addJobsParams,
  get_job: jobIdParams,
  list_jobs: listJobsParams,
  get_job_result: jobResultParams,
  cancel_job: jobIdParams,
  run_job: runJobParams,
} as const;
