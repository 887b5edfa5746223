import type { EpochMs } from '../clock';
import type { Job, JobResult, JobStatus } from '../model/job';
import type { Page, PageRequest } from '../model/page';
import type { ConflictPolicy } from '../model/schedule';

/** The fields of a job known before it runs (what travels in the queue message). */
export type JobRequest = Pick<
  Job,
  'id' | 'task' | 'payload' | 'origin' | 'scheduleId' | 'fireTime' | 'runAt' | 'startDeadline'
>;

export interface CreateJobInput {
  job: JobRequest;
  conflictPolicy: ConflictPolicy;
  now: EpochMs;
  /** When the job waits longer than the queue can delay it, it is parked in the due index until then. */
  parkUntilDue: boolean;
}

export interface ClaimJobInput {
  job: JobRequest;
  /** The attempt this delivery is for (1 for the first run). */
  attempt: number;
  owner: string;
  now: EpochMs;
  leaseUntil: EpochMs;
  /** The task's `maxRunningJobs`; when set, a slot is taken in the same transaction as the claim. */
  concurrencyLimit?: number;
}

/**
 * `claimed`: the caller now owns the job (status `running`, lease set, slot held if limited).
 * `duplicate`: another delivery claimed or finished this attempt already: drop the message.
 * `cancelled`: the job was cancelled before it started: drop the message.
 * `no_slot`: the task is at its limit; nothing was written: retry the message later.
 */
export type ClaimOutcome =
  | { status: 'claimed'; job: Job }
  | { status: 'duplicate' | 'cancelled'; job?: Job }
  | { status: 'no_slot'; running: number };

export interface FinishJobInput {
  jobId: string;
  owner: string;
  result: JobResult;
  expiresAt: EpochMs;
}

export interface RetryJobInput {
  jobId: string;
  owner: string;
  /** The attempt that failed. */
  failedAttempt: number;
  error: JobResult['error'];
  retryAt: EpochMs;
  now: EpochMs;
}

/** Jobs of a schedule or of a task (one of the two is required); `status` narrows either. */
export interface JobFilter {
  scheduleId?: string;
  task?: string;
  status?: JobStatus;
}

export interface ExpiredJobLease {
  job: Job;
}

/**
 * Durable jobs, results and per-task concurrency counters.
 * Every method that ends a job's run also returns its slot, in the same transaction.
 */
export interface JobStore {
  /**
   * Records a job accepted by the admin API (status `queued`, attempt 0). Conflict policies as for
   * schedules; an id whose job expired counts as free; `replace` never replaces a running job
   * (`ConflictingIdError`).
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
   * before `now` and a lower attempt (a redelivered message takes over a run whose worker vanished).
   * A second claim of the same job id and attempt loses.
   */
  claimJob(input: ClaimJobInput): Promise<ClaimOutcome>;

  /**
   * Final result (any outcome; `result.attempt` is the job's attempt); sets `expiresAt` (whole seconds,
   * rounded up), clears the lease and returns the slot. Works for an expired lease nobody took over.
   * Throws `LeaseLostError` unless the job is running under `owner`.
   */
  finishJob(input: FinishJobInput): Promise<Job>;

  /**
   * Records a failed attempt: status `retrying`, `runAt = retryAt`, the error as the job's latest result;
   * clears the lease and returns the slot. A retry further away than the queue can delay is parked in the
   * due index (see `acquireDueJobs`). Throws `LeaseLostError` unless running under `owner` at `failedAttempt`.
   */
  retryJob(input: RetryJobInput): Promise<Job>;

  /** The job, or undefined when absent or past `expiresAt`. */
  getJob(id: string, now: EpochMs): Promise<Job | undefined>;

  /**
   * Jobs of a schedule or a task (optionally of one status), latest `runAt` first; expired ones are left
   * out. Throws `ValidationError` when the filter names neither a schedule nor a task.
   */
  listJobs(filter: JobFilter, page: PageRequest, now: EpochMs): Promise<Page<Job>>;

  /**
   * Cancels a job that has not started: writes status `cancelled` (creating the item if the job only
   * exists as a queue message) so that no later claim succeeds; pass `request` when known so that record
   * says what the job was. Cancelling a cancelled job returns it unchanged. Returns undefined if it
   * already started.
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

  /** Sets each task's counter to the number of its jobs that hold a slot; returns the corrections made. */
  repairCounters(now: EpochMs): Promise<Map<string, { was: number; now: number }>>;
}
