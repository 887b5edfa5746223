import type { EpochMs } from '../clock';
import type { JsonValue } from '../json';
import type { Metadata } from './metadata';
import type { Priority } from './priority';
import type { RunSettingOverrides } from './run-settings';
import type { ScheduleRevision } from './schedule-revision';

export const RESULT_OUTCOMES = [
  'success',
  'error',
  'missed_start_deadline',
  'cancelled',
  'abandoned',
] as const;
/** How a job ended. */
export type ResultOutcome = (typeof RESULT_OUTCOMES)[number];

/**
 * `queued`: accepted, waiting for a worker (an ad-hoc job, or a job that waits in the due index);
 * `running`: claimed by a worker that holds its lease;
 * `retrying`: failed, another attempt is on its way;
 * the rest are final and carry a result.
 */
export const JOB_STATUSES = ['queued', 'running', 'retrying', ...RESULT_OUTCOMES] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export function isFinalStatus(status: JobStatus): status is ResultOutcome {
  return (RESULT_OUTCOMES as readonly string[]).includes(status);
}

export interface JobError {
  type: string;
  message: string;
  stack?: string;
}

/** The outcome of a job: what its handler returned or threw, and when. Expires at `expiresAt`. */
export interface JobResult {
  outcome: ResultOutcome;
  returnValue?: JsonValue;
  error?: JobError;
  startedAt: EpochMs | null;
  finishedAt: EpochMs;
  attempt: number;
}

/** Where a job came from. */
export type JobOrigin = 'schedule' | 'run_now' | 'direct';

/** One execution request of a task. */
export interface Job {
  /** `<scheduleId>@<fireTimeEpochMs>` for a schedule fire; caller-chosen or generated otherwise. */
  id: string;
  task: string;
  payload: JsonValue;
  origin: JobOrigin;
  scheduleId: string | null;
  fireTime: EpochMs | null;
  /** When the job should start (fire time plus jitter, or the retry time). */
  runAt: EpochMs;
  /** Past this instant the job is not started but finished as `missed_start_deadline`. */
  startDeadline: EpochMs | null;
  /** Overrides of the task's run settings (the job's own, or its schedule's); absent = none. */
  overrides?: RunSettingOverrides;
  /** The job's metadata (a schedule's jobs carry the schedule's); absent = none. */
  metadata?: Metadata;
  /** Absent for `normal`: under a backlog a `critical` job starts before normal ones (its place in its task's line). */
  priority?: Priority;
  /** 1 for the first run; 0 while queued and never claimed. */
  attempt: number;
  status: JobStatus;
  leaseOwner: string | null;
  leaseUntil: EpochMs | null;
  /** True while the job holds one of its task's `maxRunningJobs` slots. */
  holdsSlot: boolean;
  createdAt: EpochMs;
  startedAt: EpochMs | null;
  finishedAt: EpochMs | null;
  result: JobResult | null;
  /** After this instant the job reads as absent (DynamoDB TTL deletes it later). */
  expiresAt: EpochMs | null;
  /**
   * Attempts made before the latest `retry_job`: the retry policy counts this job's attempts from here
   * (attempt numbers keep growing, so a delivery of an earlier attempt never runs again). Absent: 0.
   */
  attemptBase?: number;
  /** The outcomes of the runs before each `retry_job`, oldest first (at most `JOB_HISTORY_LIMIT`). */
  history?: JobResult[];
  /**
   * Unique per creation of the id by `createJob` (absent for jobs a claim created: fires). A message
   * carries the one it was sent for, and a claim of a queued job needs it to match: a message sent for a
   * job that was replaced since never runs the replacement (it would run it with the old definition,
   * and the replacement's own send would then find it taken).
   */
  createToken?: string;
  /**
   * For a schedule's fire: the schedule revision (with its `firesFrom`) its run's definition was
   * claimed under (its first claim, or its latest reclaim or checked takeover).
   */
  claimedRevision?: ScheduleRevision;
  /**
   * The check its claim made (the schedule read before the claim) found that the schedule no longer
   * runs the fire as claimed: its handler never starts under this claim, so a takeover decides the fire
   * afresh. Absent when the check passed (the handler may have started: a takeover retries the run as
   * stored) or when the claim made no check (a retry).
   */
  checkFailed?: true;
  /**
   * When `cancel_job` asked for the job while it ran (the first time it asked): its worker aborts the
   * handler's signal and records `cancelled` once it settles, and no later attempt runs (a claim of one
   * ends it `cancelled`). Cleared by `retry_job`.
   */
  cancelRequestedAt?: EpochMs;
}

/** How many earlier outcomes a retried job keeps. */
export const JOB_HISTORY_LIMIT = 10;

const HISTORY_MESSAGE_CHARS = 1_000;

/**
 * A retried job's `history`: the earlier entries and its latest outcome, the newest `JOB_HISTORY_LIMIT`.
 * Entries keep no return value and no stack, and messages are cut, so the item stays small.
 */
export function historyAfterRetry(job: Job): JobResult[] {
  const history = [...(job.history ?? [])];
  if (job.result !== null) {
    const { outcome, startedAt, finishedAt, attempt, error } = job.result;
    history.push({
      outcome,
      startedAt,
      finishedAt,
      attempt,
      ...(error && { error: { type: error.type, message: error.message.slice(0, HISTORY_MESSAGE_CHARS) } }),
    });
  }
  return history.slice(-JOB_HISTORY_LIMIT);
}
