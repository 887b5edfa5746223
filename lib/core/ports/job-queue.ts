import type { EpochMs } from '../clock';
import type { ScheduleRevision } from '../model/schedule-revision';
import type { JobRequest } from './job-store';

/** One message for the jobs queue: a job request and the attempt it is for. */
export interface JobMessage {
  job: JobRequest;
  attempt: number;
  /** For a schedule fire: the revision of the schedule it was sent under. */
  revision?: ScheduleRevision;
  /** Seconds the queue holds the message before a worker may see it (0..900). */
  delaySeconds: number;
}

/** The queue between the tick (or admin) and the workers. */
export interface JobQueue {
  /** Sends messages in batches; resolves with the ids of the jobs that could not be sent. */
  send(messages: readonly JobMessage[]): Promise<{ failed: string[] }>;

  /**
   * Keeps a received message hidden for `timeoutSeconds` from now (0..43,200), after which the queue
   * delivers it again. The worker uses it to come back later to a job whose task has no free slot.
   */
  changeVisibility(receiptHandle: string, timeoutSeconds: number): Promise<void>;
}

export const MAX_QUEUE_DELAY_SECONDS = 900;

/** The longest SQS lets a received message stay hidden (12 hours). */
export const MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/** The whole-second delay to send now for a job that should start at `runAt` (the worker waits out the rest). */
export function queueDelaySeconds(runAt: EpochMs, now: EpochMs): number {
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.floor((runAt - now) / 1000)));
}
