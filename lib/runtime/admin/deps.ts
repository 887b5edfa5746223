import type { Clock, Sleep } from '../../core/clock';
import type { EventPublisher } from '../../core/ports/event-publisher';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';
import type { TaskRegistry } from '../tasks/registry';

export type { RegisteredTask, TaskRegistry } from '../tasks/registry';

/** Where the admin API writes what went wrong inside it (never what the caller got wrong). */
export interface AdminLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Everything the admin API uses, and nothing more, so it runs the same against DynamoDB and SQS in
 * AWS, against the local platform, and against in-memory fakes in tests.
 */
export interface AdminDeps {
  scheduleStore: ScheduleStore;
  jobStore: JobStore;
  queue: JobQueue;
  tasks: TaskRegistry;
  clock: Clock;
  /** Uniform in [0, 1): the tokens of new chains, and the jitter of the fires a call sends itself. */
  random: () => number;
  /** A plan of the fires a call sends itself dispatches at most this many (as the tick's). */
  maxFiresPerPlan: number;
  /**
   * How long after its run time a job this API stored but may not have sent (see
   * `CreateJobInput.resendIfUnclaimedAt`) is sent again by the tick, unless a worker claimed it.
   * @default DEFAULT_UNCLAIMED_RESEND_MS (5 minutes)
   */
  unclaimedResendMs?: number;
  /** How long results of tasks without `resultTtlSeconds` are kept. @default TASK_DEFAULTS.resultTtlSeconds (7 days) */
  defaultResultTtlSeconds?: number;
  logger: AdminLogger;
  /** Where schedule events and `job.cancelled` go after a change was written. @default nowhere */
  events?: EventPublisher;
  /** Generates schedule ids, job ids, lease owners and chain tokens. */
  newId: () => string;
  /** How `wait_seconds` waits between reads of a job, and a call waits for the send phase of a fire it sends. */
  sleep: Sleep;
}
