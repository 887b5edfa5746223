import type { EpochMs } from '../clock';
import { isoUtc } from '../instants';
import type { JobError, JobResult } from '../model/job';
import type { JobRequest } from './job-store';

/** The endings a task's failure destination receives: the job failed for good. */
export const FAILURE_NOTICE_OUTCOMES = ['error', 'abandoned'] as const;
export type FailureNoticeOutcome = (typeof FAILURE_NOTICE_OUTCOMES)[number];

/** A job that ended in `error` (after its last attempt) or `abandoned`. */
export interface FailureNotice {
  jobId: string;
  task: string;
  status: FailureNoticeOutcome;
  error: JobError | null;
  /** The attempt that ended it: how many attempts the job had. */
  attempts: number;
  scheduleId: string | null;
  fireTime: EpochMs | null;
  finishedAt: EpochMs;
}

/** Where a task's jobs that failed for good are sent (an SQS queue, an EventBridge bus). */
export interface FailureDestination {
  send(notice: FailureNotice): Promise<void>;
}

/** The notice for a final result, or undefined when the result is no failure for good. */
export function failureNoticeOf(job: JobRequest, result: JobResult): FailureNotice | undefined {
  if (!(FAILURE_NOTICE_OUTCOMES as readonly string[]).includes(result.outcome)) return undefined;
  return {
    jobId: job.id,
    task: job.task,
    status: result.outcome as FailureNoticeOutcome,
    error: result.error ?? null,
    attempts: result.attempt,
    scheduleId: job.scheduleId,
    fireTime: job.fireTime,
    finishedAt: result.finishedAt,
  };
}

/**
 * The message body every destination receives (docs/runtime-config.md, "Failure destinations"):
 * snake_case like the admin API, instants as ISO strings, the error without its stack.
 */
export function failureNoticeBody(notice: FailureNotice) {
  return {
    job_id: notice.jobId,
    task: notice.task,
    status: notice.status,
    error: notice.error && { type: notice.error.type, message: notice.error.message },
    attempts: notice.attempts,
    schedule_id: notice.scheduleId,
    fire_time: notice.fireTime === null ? null : isoUtc(notice.fireTime),
    finished_at: isoUtc(notice.finishedAt),
  };
}
