import type { Clock } from '../../core/clock';
import type { PlanLimits } from '../../core/planning';
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
  /** Uniform in [0, 1): jitter of schedules dispatched by the call itself. */
  random: () => number;
  /** The tick's lookahead window and plan size: a schedule due inside the window is dispatched at once. */
  planLimits: PlanLimits;
  /** How long the call holds a schedule's lease while it dispatches it (as the tick does). */
  scheduleLeaseMs: number;
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
  /** Generates schedule ids, job ids and lease owners. @default crypto.randomUUID */
  newId?: () => string;
  /** How `wait_seconds` waits between reads of a job. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}
