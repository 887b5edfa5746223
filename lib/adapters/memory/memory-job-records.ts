import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { parseFireJobId } from '../../core/model/job-id';
import type { JobFilter, JobRequest } from '../../core/ports/job-store';

/**
 * A job as kept in memory: the domain job plus where it waits in the due index, if parked, until
 * when it stays a dedupe record (`expiresAt` only hides it from reads), and whether a cancellation by
 * a schedule check may still be claimed again.
 */
export interface StoredJob extends Job {
  parkedUntil: EpochMs | null;
  recordExpiresAt: EpochMs | null;
  reclaimable: boolean;
}

export function newJob(request: JobRequest, now: EpochMs): Job {
  return {
    ...structuredClone(request),
    attempt: 0,
    status: 'queued',
    leaseOwner: null,
    leaseUntil: null,
    holdsSlot: false,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    result: null,
    expiresAt: null,
  };
}

/**
 * A schedule's or a task's jobs as the DynamoDB store lists them: a fire's job at its fire time (its place
 * in the schedule's partition and in the task's fire log), any other job at its run time.
 */
export function listingPosition(job: Job): string {
  const time = parseFireJobId(job.id)?.fireTime ?? job.runAt;
  return `${String(Number.MAX_SAFE_INTEGER - time).padStart(16, '0')}#${job.id}`;
}

/** The order of a listing, as the DynamoDB store reads it: by schedule or task, or across tasks by finish. */
export function listingPositionOf(filter: JobFilter): (job: Job) => string {
  return filter.scheduleId !== undefined || filter.task !== undefined ? listingPosition : finishPosition;
}

/** Latest finish first, as the DynamoDB store's index of unsuccessful endings. */
export function finishPosition(job: Job): string {
  return `${String(Number.MAX_SAFE_INTEGER - (job.finishedAt ?? 0)).padStart(16, '0')}#${job.id}`;
}

export function isExpired(job: Job, now: EpochMs): boolean {
  return job.expiresAt !== null && job.expiresAt <= now;
}

export function isRecordGone(job: StoredJob, now: EpochMs): boolean {
  return job.recordExpiresAt !== null && job.recordExpiresAt <= now;
}

export function wholeSecondsUp(ms: EpochMs): EpochMs {
  return Math.ceil(ms / 1000) * 1000;
}

export function present(job: StoredJob | Job): Job {
  const {
    parkedUntil: _parked,
    recordExpiresAt: _record,
    reclaimable: _reclaimable,
    ...rest
  } = job as StoredJob;
  return structuredClone(rest);
}
