import * as z from 'zod';
import type { JobStatus } from '../model/job';
import { instant, jobId, taskId, wholeNumber } from './fields';
import type { WireJob } from './jobs';

/**
 * Finding and recovering jobs that failed for good (docs/admin-api.md, "count_jobs", "retry_job"):
 * counts by status per task, and a new attempt of a job that ended unsuccessfully.
 */

/** The most jobs `count_jobs` reads per task: it counts the newest, and says when there were more. */
export const MAX_COUNTED_JOBS = 5_000;

export const countJobsParams = z.strictObject({
  task: taskId.optional(),
  /** Count only jobs whose `run_at` is at or after this instant. */
  since: instant.optional(),
  max_jobs: wholeNumber(1, MAX_COUNTED_JOBS).default(1_000),
});

export const retryJobParams = z.strictObject({ job_id: jobId });

/** One task's jobs by status, among the `counted` newest (all of them when `complete`). */
export interface WireJobCounts {
  task: string;
  counts: Partial<Record<JobStatus, number>>;
  counted: number;
  /** False when the task has more jobs (in the range) than `max_jobs`: only the newest were counted. */
  complete: boolean;
}

export interface JobRecoveryResults {
  count_jobs: { tasks: WireJobCounts[] };
  retry_job: { job: WireJob };
}

export const JOB_RECOVERY_REQUESTS = {
  count_jobs: countJobsParams,
  retry_job: retryJobParams,
} as const;
