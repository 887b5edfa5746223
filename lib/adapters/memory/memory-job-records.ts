import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { parseFireJobId } from '../../core/model/job-id';
import type { ClaimJobInput, JobFilter, JobRequest } from '../../core/ports/job-store';

/**
 * A job as kept in memory: the domain job plus where it waits in the due index, if parked, until
 * when it stays a dedupe record (`expiresAt` only hides it from reads), and whether a cancellation by
 * a schedule check may still be claimed again.
 */
export interface StoredJob extends Job {
  parkedUntil: EpochMs | null;
  recordExpiresAt: EpochMs | null;
  reclaimable: boolean;
  /** A fire of a schedule with `maxRuns` counted as started (`startCappedRun`): kept by later claims. */
  countedRun?: true;
}

/**
 * Whether a claim may take the stored job, as DynamoDB's claim condition decides: a queued job (only by
 * a message of its own creation: one sent for a job replaced since takes nothing), a retrying one, a
 * slot-less run whose lease ended, each by a later attempt; or a fire a schedule check cancelled, by a
 * delivery that re-checks it, as that attempt or a later one.
 */
/** The job is running under this very claim (same owner, attempt and lease): an earlier try of it applied. */
export function ourEarlierClaim(existing: StoredJob, input: ClaimJobInput): boolean {
  return (
    existing.status === 'running' &&
    existing.leaseOwner === input.owner &&
    existing.attempt === input.attempt &&
    existing.leaseUntil === input.leaseUntil
  );
}

export function claimable(existing: StoredJob, input: ClaimJobInput): boolean {
  const abandonedRun =
    existing.status === 'running' &&
    !existing.holdsSlot &&
    existing.leaseUntil !== null &&
    existing.leaseUntil < input.now;
  const sameCreation =
    input.job.createToken === undefined ||
    existing.createToken === undefined ||
    existing.createToken === input.job.createToken;
  if (input.reclaimCancelledFire === true && existing.reclaimable && existing.attempt <= input.attempt)
    return true;
  return (
    ((existing.status === 'queued' && sameCreation) || existing.status === 'retrying' || abandonedRun) &&
    existing.attempt < input.attempt
  );
}

/**
 * The record of a job that exists only as a queue message (a fire sent, an added job's message): as
 * `request` says, or an id alone when it is not known.
 */
export function messageOnlyRecord(id: string, now: EpochMs, request?: JobRequest): StoredJob {
  const known: JobRequest = request ?? {
    id,
    task: '',
    payload: null,
    origin: 'direct',
    scheduleId: null,
    fireTime: null,
    runAt: now,
    startDeadline: null,
  };
  return { ...newJob(known, now), parkedUntil: null, recordExpiresAt: null, reclaimable: false };
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
    countedRun: _counted,
    ...rest
  } = job as StoredJob;
  return structuredClone(rest);
}
