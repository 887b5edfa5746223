/**
 * Limits and names shared by every part of Sundial: the runtime, the stack (lib/infra), the local
 * platform and the CLI import them from here, so none of them keeps its own copy.
 *
 * Size limits are checked where input enters (admin API) and where results are written, so nothing is
 * ever truncated: DynamoDB items hold at most 400 KB (payload and result share one job item) and SQS
 * messages 256 KB (payload plus the job's envelope).
 */
export const LIMITS = {
  /** A schedule's or job's payload, as UTF-8 JSON. */
  payloadBytes: 128 * 1024,
  /** A handler's return value, as UTF-8 JSON; larger ones become an `error` result that says so. */
  returnValueBytes: 128 * 1024,
  /** Ids of schedules and jobs. */
  idLength: 200,
  tagsPerSchedule: 20,
  tagLength: 64,
  /** Jobs in one `add_jobs` call. */
  bulkJobs: 1_000,
  /**
   * A trigger, as UTF-8 JSON: room for 100 `or` children of long cron expressions, and a bound on what
   * 100 children nested 8 deep could otherwise reach (far past a 400 KB item).
   */
  triggerBytes: 32 * 1024,
  /** A cron expression: listing every value of every field by hand takes about 530, real ones far fewer. */
  cronExpressionLength: 512,
  /** The longest an SQS message can be delayed; jobs due later wait in the store (parked). */
  maxQueueDelaySeconds: 900,
  /**
   * How long the stack's queues keep a message: the longest SQS allows (14 days), so nothing that waits
   * for a slot expires. A job's dedupe record is kept longer than this (`DEDUPE_RECORD_RETENTION_MS`).
   */
  queueRetentionDays: 14,
  /** The longest SQS lets a received message stay hidden (12 hours). */
  maxVisibilityTimeoutSeconds: 43_200,
  /** The longest a Lambda function may run, and so a handler. */
  maxLambdaTimeoutSeconds: 900,
  /** What the worker's timeout leaves beyond the longest task timeout: claiming, writing the result, events. */
  workerTimeoutMarginSeconds: 30,
  /**
   * The longest `get_job_result` and `run_job` wait for a result (`wait_seconds`): half the admin
   * Lambda's 60 s timeout, which leaves room for the call's other work and its reads.
   */
  maxResultWaitSeconds: 30,
  /** The most a schedule's fires may be delayed at random (`max_jitter_seconds`). */
  maxJitterSeconds: 3600,
} as const;

/**
 * How schedules are dispatched (ADR 0006–0008), shared by the runtime's defaults and the construct's: a
 * tick a minute (the note grid is sized for it: ADR 0007), its budget within the minute, and the
 * dispatchers it hands the due shards to.
 */
export const DISPATCH = {
  tickPeriodMinutes: 1,
  /** A note is read up to a tick period and this budget after its bucket, and its successor must still land two buckets ahead of the reader. */
  tickBudgetMs: 40_000,
  /** Sized for 10M hourly schedules and a 1M herd in docs/benchmarks.md. */
  dispatchers: 8,
} as const;

/** The log levels of the runtime (`SUNDIAL_LOG_LEVEL`, the construct's `logLevel`), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The outputs of the deployed stack, by what they hold; the CLI finds the admin function by its output. */
export const STACK_OUTPUTS = {
  adminFunctionName: 'AdminFunctionName',
  tableName: 'TableName',
  queueUrl: 'QueueUrl',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  eventBusName: 'EventBusName',
  dashboardName: 'DashboardName',
} as const;

/** The shortest worker timeout the stack picks by itself. */
const MIN_DEFAULT_WORKER_TIMEOUT_SECONDS = 90;

/**
 * How many worker invocations the queue for critical jobs gets by default: a share of 2 for critical
 * jobs, and one per slot of a limited task, since every job woken from a waiting line (holding the slot
 * handed to it) travels on that queue (ADR 0009); at most `ceiling`.
 */
export function defaultCriticalConcurrency(maxRunningJobs: Iterable<number>, ceiling: number): number {
  let slots = 0;
  for (const limit of maxRunningJobs) slots += limit;
  return Math.min(ceiling, 2 + slots);
}

/**
 * The worker Lambda's timeout unless one is set (the construct's `workerTimeoutSeconds`): the longest
 * task timeout plus the margin, at least 90 s, at most Lambda's longest. The local platform gives its
 * worker invocations the same.
 */
export function defaultWorkerTimeoutSeconds(longestTaskTimeoutSeconds: number): number {
  return Math.min(
    LIMITS.maxLambdaTimeoutSeconds,
    Math.max(
      MIN_DEFAULT_WORKER_TIMEOUT_SECONDS,
      longestTaskTimeoutSeconds + LIMITS.workerTimeoutMarginSeconds,
    ),
  );
}

/** The size of a value as UTF-8 JSON, in bytes. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}
