import type { EpochMs } from '../clock';
import { LIMITS } from '../limits';
import type { ScheduleRevision } from '../model/schedule-revision';
import type { JobRequest } from './job-store';

/** One message for the jobs queue: a job request and the attempt it is for. */
export interface JobMessage {
  job: JobRequest;
  attempt: number;
  /** For a schedule fire: the revision of the schedule it was sent under. */
  revision?: ScheduleRevision;
  /** For a schedule fire: noted in its task's fire log before the send (see `JobMessageBody.taskLogged`). */
  taskLogged?: true;
  /** Woken from its task's line (see `JobMessageBody.woken`). */
  woken?: true;
  /** Seconds the queue holds the message before a worker may see it (0..`LIMITS.maxQueueDelaySeconds`). */
  delaySeconds: number;
}

/** A message as a worker received it (an SQS record has both fields). */
export interface ReceivedMessage {
  receiptHandle: string;
  /** The queue it came from (its ARN): the jobs queue or the queue for critical jobs. */
  eventSourceARN: string;
}

/**
 * A message the queue refused for what it holds (longer than the queue allows, characters it does not
 * take), not for a throttle or an outage: sent again, it would be refused again.
 */
export interface RefusedMessage {
  jobId: string;
  /** The queue's reason, in its words (`InvalidParameterValue: Message must be shorter than …`). */
  reason: string;
}

/** How a send went. */
export interface SendOutcome {
  /** The jobs whose messages were not sent, refused ones included. */
  failed: string[];
  /** Those of `failed` that the queue refused for good (absent: none). */
  refused?: RefusedMessage[];
}

/**
 * The queue between the tick (or admin) and the workers. Critical jobs go to a queue of their own
 * when the deployment has one (ADR 0003 §6), so that they do not wait behind a backlog of normal ones.
 */
export interface JobQueue {
  /** Sends messages in batches; resolves with the jobs that could not be sent, and which were refused for good. */
  send(messages: readonly JobMessage[]): Promise<SendOutcome>;

  /**
   * Keeps a received message hidden for `timeoutSeconds` from now (0..`LIMITS.maxVisibilityTimeoutSeconds`), after which the queue
   * it came from delivers it again. The worker uses it to come back later to a job it cannot start yet.
   */
  changeVisibility(message: ReceivedMessage, timeoutSeconds: number): Promise<void>;
}

/** The whole-second delay to send now for a job that should start at `runAt` (the worker waits out the rest). */
export function queueDelaySeconds(runAt: EpochMs, now: EpochMs): number {
  return Math.min(LIMITS.maxQueueDelaySeconds, Math.max(0, Math.floor((runAt - now) / 1000)));
}

/**
 * How long before its run time the tick sends a job parked in the due index: more than a tick period
 * and the tick's budget, so that no job starts late for want of a tick; well within the queue's longest
 * delay.
 */
export const PARKED_JOB_LEAD_MS = 90_000;

/**
 * How long a sender holds a parked job it leased to send (a tick, or `retry_job` for the job it parks):
 * longer than a tick's budget, so one sends each; when the send fails, the tick after it sends it.
 */
export const PARKED_JOB_LEASE_MS = 120_000;

/**
 * Whether a job starting at `runAt` waits in the store's due index (parked) instead of the queue: it
 * starts later than the queue can delay a message, and the tick sends it when it comes due. The one
 * rule for jobs added through the admin API, retries the worker schedules, and both stores' `retryJob`.
 */
export function parksBeyondQueueDelay(runAt: EpochMs, now: EpochMs): boolean {
  return runAt - now > LIMITS.maxQueueDelaySeconds * 1000;
}
