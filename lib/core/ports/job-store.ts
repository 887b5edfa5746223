import type { EpochMs } from '../clock';
import { ValidationError } from '../errors';
import { LIMITS } from '../limits';
import type { Job, JobResult, JobStatus } from '../model/job';
import type { Metadata } from '../model/metadata';
import type { Page, PageRequest } from '../model/page';
import type { RateLimit } from '../model/rate-limit';
import type { ConflictPolicy } from '../model/schedule';
import type { ScheduleRevision } from '../model/schedule-revision';
import type { CancelRequests } from './cancel-requests';
import type { HeldSlot, MessageCopy, WaitingLineStore, WokenEntry } from './waiting-line';

const HOUR_MS = 3_600_000;

/** How long the stack's queues keep a message (the jobs queue and its dead-letter queue). */
export const QUEUE_RETENTION_MS = LIMITS.queueRetentionDays * 24 * HOUR_MS;

/**
 * How long a job's item outlives the end of its run as a dedupe record, whatever its result TTL. Any copy
 * of one of its messages (a duplicate delivery, a fire re-sent after a tick crash, a message moved to the
 * dead-letter queue, which keeps its first enqueue time) lives at most the queue's retention from its
 * enqueue, and it was enqueued at most the longest queue delay before the run started. The day of margin
 * covers copies enqueued after the run ended (a re-sent fire comes within a schedule lease) and a redrive
 * from the dead-letter queue: AWS gives a redriven message a new retention period, so a redriven copy is
 * recognised only when it arrives within this period.
 */
export const DEDUPE_RECORD_RETENTION_MS =
  QUEUE_RETENTION_MS + LIMITS.maxQueueDelaySeconds * 1000 + 24 * HOUR_MS;

/** When the item of a job that ended at `endedAt`, with a result readable until `resultExpiresAt`, may go. */
export function dedupeRecordExpiresAt(endedAt: EpochMs, resultExpiresAt: EpochMs): EpochMs {
  return Math.max(resultExpiresAt, endedAt + DEDUPE_RECORD_RETENTION_MS);
}

/** The fields of a job known before it runs (what travels in the queue message). */
export type JobRequest = Pick<
  Job,
  | 'id'
  | 'task'
  | 'payload'
  | 'origin'
  | 'scheduleId'
  | 'fireTime'
  | 'runAt'
  | 'startDeadline'
  | 'overrides'
  | 'metadata'
  | 'attemptBase'
  | 'priority'
  | 'createToken'
>;

export interface CreateJobInput {
  job: JobRequest;
  conflictPolicy: ConflictPolicy;
  now: EpochMs;
  /** When the job waits longer than the queue can delay it, it is parked in the due index until then. */
  parkUntilDue: boolean;
  /**
   * For a job sent now (not `parkUntilDue`): when it enters the due index anyway, in case its send never
   * happens (the caller dies between this write and the send, or the send and `parkUnclaimedJob` after it
   * both fail). Its claim (or cancellation) takes it out; a job still unclaimed then is sent again by the
   * tick, which is harmless if the first send did go out. Absent: the job is stored without this net.
   */
  resendIfUnclaimedAt?: EpochMs;
}

/**
 * How long after its run time the tick sends again a job stored by the admin API that nobody claimed
 * (`CreateJobInput.resendIfUnclaimedAt`): long enough that a healthy queue has delivered it by then.
 */
export const DEFAULT_UNCLAIMED_RESEND_MS = 5 * 60_000;

export interface ClaimJobInput {
  job: JobRequest;
  /** The attempt this delivery is for (1 for the first run). */
  attempt: number;
  owner: string;
  now: EpochMs;
  leaseUntil: EpochMs;
  /** The task's `maxRunningJobs`; when set, a slot is taken in the same transaction as the claim. */
  concurrencyLimit?: number;
  /**
   * The task's `rateLimit`; when set, the claim also needs the task's next start time to have come
   * (`nextStartAt` of its slots) and moves it one start interval past `now`, in the same transaction.
   */
  rateLimit?: RateLimit;
  /**
   * The claimant is a schedule fire's checked delivery (it read the schedule before this claim): it may
   * also claim a job that such a check cancelled (`FinishJobInput.reclaimable`), as that attempt or a
   * later one: attempt numbers never go back, so an attempt whose handler may have started is never
   * started again under its number.
   */
  reclaimCancelledFire?: boolean;
  /**
   * For a schedule fire's checked claim: the check the worker made before it, kept on the job as
   * `claimedRevision` and `checkFailed` (a claim without one removes `checkFailed`: its run may start).
   * `startedAt` is when the check's read began: the fire's start, from which the schedule's changes no
   * longer apply to it.
   */
  check?: { revision: ScheduleRevision; failed: boolean; startedAt: EpochMs };
  /**
   * The fire was noted in its task's fire log before it was sent (`logFiresToSend`): a store may then
   * leave its job out of the task's listing index, the log lists it.
   */
  taskLogged?: boolean;
  /**
   * The delivery was woken from the task's line at `position` as `copy` of its job's message (ADR
   * 0009; a reclaim may since go on as a later attempt): while its woken entry is still there and
   * carries that copy (`sameCopy`), the claim takes the slot it was handed (deleting the entry) instead
   * of a free one.
   */
  woken?: { position: string; copy: MessageCopy };
}

/**
 * `claimed`: the caller now owns the job (status `running`, lease set, slot held if limited).
 * `duplicate`: another delivery claimed or finished this attempt already: drop the message.
 * `cancelled`: the job was cancelled before it started: drop the message.
 * `no_slot`: the task is at its limit; nothing was written: retry the message later.
 */
export type ClaimOutcome =
  | {
      status: 'claimed';
      job: Job;
      /**
       * Set when the claim took a job that a schedule check had cancelled (`reclaimCancelledFire`): that
       * cancellation was told already, and this delivery only checks the fire again.
       */
      reclaimed?: boolean;
      /** The claim took the slot its woken entry was handed (`woken`). */
      tookWokenSlot?: boolean;
      /**
       * An earlier attempt's start was counted against its schedule's `max_runs` (`startCappedRun`):
       * that attempt passed its fire check, so a takeover goes on with the run, whatever changed since.
       */
      countedRun?: boolean;
    }
  | { status: 'duplicate'; job?: Job }
  | {
      status: 'cancelled';
      job?: Job;
      /**
       * Set for a fire delivery refused only because the cancellation it could reclaim is of a later
       * attempt (a takeover's): it may claim the job again as this attempt.
       */
      reclaimAsAttempt?: number;
    }
  | {
      status: 'no_slot';
      running: number;
      /** Set when the rate refused the claim (the task was neither paused nor at its limit): when it may start. */
      nextStartAt?: EpochMs;
      /** Set with `nextStartAt` when the claim's woken entry holds a slot, which it keeps. */
      wokenSlot?: true;
    };

export interface FinishJobInput {
  jobId: string;
  owner: string;
  result: JobResult;
  expiresAt: EpochMs;
  /**
   * A `cancelled` result written because the job's schedule changed after the fire was sent: a later
   * delivery of the fire that checks the schedule again may still claim it (`reclaimCancelledFire`).
   * Cancellations by `cancelJob` are final.
   */
  reclaimable?: boolean;
  /** The slot the run holds, as its claim said (without it, the store first tries an ending without one). */
  heldSlot?: HeldSlot;
}

/** A run that ended: the job as written, and the job its slot was handed to (woken: send its message). */
export interface RunEnd {
  job: Job;
  woken?: WokenEntry;
}

export interface RetryJobInput {
  jobId: string;
  owner: string;
  /** The attempt that failed. */
  failedAttempt: number;
  error: JobResult['error'];
  retryAt: EpochMs;
  now: EpochMs;
  /** The slot the run holds, as its claim said (without it, the store first tries an ending without one). */
  heldSlot?: HeldSlot;
}

/** The endings `retry_job` gives a new attempt. */
export const RETRYABLE_OUTCOMES = ['error', 'missed_start_deadline', 'abandoned'] as const;

export interface RetryEndedJobInput {
  jobId: string;
  now: EpochMs;
  /** The caller sends the new attempt's message under this lease; when it does not, the tick does once it ends. */
  owner: string;
  leaseUntil: EpochMs;
}

/**
 * `retried`: the job is `retrying` (attempt unchanged, `attemptBase` = attempt, result moved to `history`),
 * parked due `now` and leased to the caller. `not_retryable`: its status is not one of
 * `RETRYABLE_OUTCOMES`; nothing was written.
 */
export type RetryEndedJobOutcome = { status: 'retried' | 'not_retryable'; job: Job };

export function isRetryableOutcome(status: JobStatus): boolean {
  return (RETRYABLE_OUTCOMES as readonly string[]).includes(status);
}

/**
 * The endings that are listed across all tasks (`listJobs` with a `status` alone): they are rare, so
 * indexing them costs nothing on the path of a job that succeeds (ADR 0001, "Jobs that failed for good").
 */
export const UNSUCCESSFUL_OUTCOMES = ['error', 'missed_start_deadline', 'abandoned', 'cancelled'] as const;
export type UnsuccessfulOutcome = (typeof UNSUCCESSFUL_OUTCOMES)[number];

export function isUnsuccessfulOutcome(status: JobStatus): status is UnsuccessfulOutcome {
  return (UNSUCCESSFUL_OUTCOMES as readonly string[]).includes(status);
}

/**
 * Jobs of a schedule or of a task; `status` narrows either. Without both, `status` is required and one
 * of `UNSUCCESSFUL_OUTCOMES`: the jobs of every task that ended so, latest `finishedAt` first, narrowed
 * to `finishedFrom <= finishedAt < finishedBefore` when given (only then).
 */
export interface JobFilter {
  scheduleId?: string;
  task?: string;
  status?: JobStatus;
  /** Only jobs with all these metadata entries (applied to each page: a page may hold fewer items). */
  metadata?: Metadata;
  finishedFrom?: EpochMs;
  finishedBefore?: EpochMs;
}

/** Throws `ValidationError` unless `filter` is one `listJobs` serves (the same in every store). */
export function checkJobFilter(filter: JobFilter): void {
  const byOwner = filter.scheduleId !== undefined || filter.task !== undefined;
  const ranged = filter.finishedFrom !== undefined || filter.finishedBefore !== undefined;
  if (byOwner && ranged) {
    throw ValidationError.single('filter', 'a finish time range narrows only a listing by status alone');
  }
  if (
    filter.finishedFrom !== undefined &&
    filter.finishedBefore !== undefined &&
    filter.finishedBefore <= filter.finishedFrom
  ) {
    throw ValidationError.single('filter', 'finishedBefore must be later than finishedFrom');
  }
  if (!byOwner && (filter.status === undefined || !isUnsuccessfulOutcome(filter.status))) {
    throw ValidationError.single(
      'filter',
      `listing jobs needs a scheduleId or a task (status narrows either), or a status alone of ${UNSUCCESSFUL_OUTCOMES.join(', ')}`,
    );
  }
}

/**
 * Durable jobs, results and per-task concurrency counters.
 * Every method that ends a job's run also returns its slot, in the same transaction; a counter never
 * goes below 0 (a run ending while its counter is already 0 ends without giving a slot back).
 *
 * A job that ended (finished or cancelled) keeps its item as a dedupe record after its result expired:
 * reads treat it as absent from `expiresAt` (the result TTL) on, but claims still see it until
 * `dedupeRecordExpiresAt(endedAt, expiresAt)`, so no copy of its messages can run it again. After that
 * the store may delete it (DynamoDB's TTL does, up to days later); a delivery then claims the id anew.
 */
export interface JobStore extends WaitingLineStore, CancelRequests {
  /**
   * Records a job accepted by the admin API (status `queued`, attempt 0). Conflict policies as for
   * schedules; `replace` never replaces a running job (`ConflictingIdError`). An id whose result expired
   * counts as free, except a schedule fire's (origin `schedule`), which stays taken until its dedupe record
   * ends: re-adding an ad-hoc id after its result expired is a new job (the API's ids never contain the
   * `@` of a fire's id), while a fire's id must not run twice. A copy of the old job's message that is
   * still queued would claim the new job: re-use ids only for jobs whose messages are gone.
   */
  createJob(input: CreateJobInput): Promise<{ status: 'added' | 'replaced' | 'kept'; job: Job }>;

  /**
   * Parks a job in the due index at its `runAt` (the tick sends it) after its send failed or may have
   * failed, but only while nobody has claimed it: `queued` at attempt 0. A job that was claimed (its
   * message did go out), finished, retried or cancelled is left as it is and `undefined` returned, as
   * for an unknown id.
   */
  parkUnclaimedJob(jobId: string): Promise<Job | undefined>;

  /**
   * Claims one delivery. Succeeds only if the job has no item yet, or is `queued`/`retrying` with a
   * stored attempt lower than `attempt`, or is `running` without a slot and with a lease that ended
   * before `now` and a lower attempt (a redelivered message takes over a run whose worker vanished),
   * or, with `reclaimCancelledFire`, is `cancelled` reclaimably (whatever its attempt), which the outcome
   * then reports (`reclaimed`). A second claim of the same job id and attempt loses, and so does any
   * claim of a job that ended, also after its result expired (its dedupe record, above, still exists).
   */
  claimJob(input: ClaimJobInput): Promise<ClaimOutcome>;

  /**
   * Final result (any outcome; `result.attempt` is the job's attempt); sets `expiresAt` (the result TTL,
   * whole seconds, rounded up; the dedupe record lives on, from `result.finishedAt`), clears the lease
   * and hands the slot to the line's head or gives it back (ADR 0009). Works for an expired lease nobody took
   * over. Throws `LeaseLostError` unless the job is running under `owner`.
   */
  finishJob(input: FinishJobInput): Promise<RunEnd>;

  /**
   * Records a failed attempt: status `retrying`, `runAt = retryAt`, the error as the job's latest result;
   * clears the lease and hands the slot on or gives it back. A retry further away than the queue
   * can delay is parked in the due index (see `acquireDueJobs`). The tick's reaper retries a stalled run
   * this way too. Throws `LeaseLostError` unless running under `owner` at `failedAttempt`.
   */
  retryJob(input: RetryJobInput): Promise<RunEnd>;

  /**
   * Gives a job that ended in one of `RETRYABLE_OUTCOMES` a new attempt (see `RetryEndedJobOutcome`):
   * its outcome joins `history` (the newest `JOB_HISTORY_LIMIT`, without return value or stack), it leaves
   * the listing of unsuccessful jobs, and it waits in the due index, leased to `owner`, for its message
   * (attempt + 1, without a start deadline). Of racing calls exactly one retries. Undefined when the job
   * is absent or its result expired.
   */
  retryEndedJob(input: RetryEndedJobInput): Promise<RetryEndedJobOutcome | undefined>;

  /** The job, or undefined when absent or past `expiresAt` (its result expired). */
  getJob(id: string, now: EpochMs): Promise<Job | undefined>;

  /**
   * The job's record, also once its result expired: its item stays as a dedupe record until
   * `dedupeRecordExpiresAt`. Undefined when absent. For whether a job ended, never for its result.
   */
  getJobRecord(id: string): Promise<Job | undefined>;

  /**
   * Jobs of a schedule or a task (optionally of one status), latest `runAt` first; or, with only an
   * unsuccessful `status` (see `JobFilter`), such jobs of every task, latest `finishedAt` first. Expired
   * ones are left out. Throws `ValidationError` for any other filter.
   */
  listJobs(filter: JobFilter, page: PageRequest, now: EpochMs): Promise<Page<Job>>;

  /**
   * Notes schedule fires about to be sent for the first time in their tasks' fire logs, so that a task's
   * listing finds their jobs without an index entry per job (ADR 0001). Throws when they may not be
   * noted: the caller then sends none of them. Resolves with the ids it noted (a store that lists every
   * job without a log notes none).
   */
  logFiresToSend(jobs: readonly JobRequest[], now: EpochMs): Promise<ReadonlySet<string>>;

  /**
   * Cancels a job that has not started: writes status `cancelled` (creating the item if the job only
   * exists as a queue message) so that no later claim succeeds; pass `request` when known so that record
   * says what the job was. `expiresAt` ends the record's visibility; it stays a dedupe record from `now`
   * as a finished job does. Cancelling a cancelled job returns it unchanged, except that a reclaimable
   * cancellation becomes final. Returns undefined if it already started.
   */
  cancelJob(id: string, now: EpochMs, expiresAt: EpochMs, request?: JobRequest): Promise<Job | undefined>;

  /** Jobs parked in the due index with `runAt <= dueBefore`, leased to `owner` so one tick sends each. */
  acquireDueJobs(
    owner: string,
    now: EpochMs,
    dueBefore: EpochMs,
    leaseMs: number,
    limit: number,
  ): Promise<Job[]>;

  /** Takes a parked job out of the due index once its message has been sent. */
  markJobSent(jobId: string, owner: string): Promise<void>;

  /**
   * Slot-holding running jobs whose lease ended before `now` (their worker crashed or timed out): the
   * tick reaps them to return their slots. A run without a slot is not indexed for this (it saves two
   * index writes per job): its message stays in the queue until the run ends, and its redelivery takes
   * the run over (`claimJob`).
   */
  findExpiredJobLeases(now: EpochMs, limit: number): Promise<Job[]>;

  /** Running jobs per task as counted by the counter items. */
  runningCounts(): Promise<Map<string, number>>;

  /**
   * Brings each task's counter towards the number of its jobs that hold a slot by the rule of
   * `counterRepair` (counter-repair.ts): raises at once; lowers only when two repairs at least
   * `COUNTER_REPAIR_SETTLE_MS` apart saw the same count with no slot change between them. Returns the
   * corrections made.
   */
  repairCounters(now: EpochMs): Promise<Map<string, { was: number; now: number }>>;
}
