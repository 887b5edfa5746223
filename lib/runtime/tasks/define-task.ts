import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ScheduleDeclaration } from '../../core/code-schedules/declaration';
import type { JsonValue } from '../../core/json';
import { LIMITS } from '../../core/limits';
import { RATE_LIMIT_BOUNDS, type RateLimit } from '../../core/model/rate-limit';
import { MAX_RESULT_TTL_SECONDS } from '../../core/model/run-settings';
import { refuseUnknownOptions } from './task-options';

/** How a failed job is tried again. `maxAttempts` counts the first run. */
export interface RetryPolicy {
  maxAttempts: number;
  /** The delay before the second attempt; doubled for each further attempt, with full jitter. */
  backoffSeconds: number;
  maxBackoffSeconds: number;
}

/** Which job events a task publishes to the event bus. */
export type EventsPolicy = 'none' | 'failures' | 'all';

/** A structured logger that adds the job's id, task and attempt to every line. */
export interface JobLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a handler knows about the job it runs. */
export interface JobContext {
  jobId: string;
  scheduleId: string | null;
  /** The schedule's fire time, or null for a job added directly. */
  fireTime: Date | null;
  /** 1 for the first run. */
  attempt: number;
  /**
   * The job's metadata: what `add_job` gave it, or its schedule's (copied when the job was sent); `{}`
   * when it has none. Read-only.
   *
   * @example
   * async handler(payload, { metadata, logger }) {
   *   logger.info('running for tenant', { tenant: metadata.tenant });
   * }
   */
  metadata: Readonly<Record<string, string>>;
  /** The handler must finish before this instant (the task's timeout or the Lambda's remaining time). */
  deadline: Date;
  /**
   * Aborted at the deadline: pass it to `fetch` and other cancellable work, and stop when it fires.
   * A handler must honour it. The run then counts as a `TimeoutError` (retried), but its slot is held
   * until the handler settles, so a handler that ignores its signal delays its own retry and the task's
   * other jobs; in Lambda, one still running at the end of the invocation gets the worker's sandbox
   * ended (every handler running in it stops).
   *
   * @example
   * async handler(payload, { signal }) {
   *   for (const page of pages) {
   *     signal.throwIfAborted();
   *     await fetch(page, { signal });
   *   }
   * }
   */
  signal: AbortSignal;
  logger: JobLogger;
}

/**
 * What a handler may return: a JSON value the store keeps unchanged (the same rules as payloads: at
 * most 128 KB as JSON and as stored, nested at most 30 levels, numbers within ±(2^53 − 1) and of magnitude at least 1e-130, no empty or `__proto__` keys),
 * or nothing. Anything else becomes an `InvalidReturnValueError` result, not retried.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `async handler() {}` returns Promise<void>, which must be accepted.
export type TaskResult = JsonValue | undefined | void;

export type TaskHandler<Payload, Result extends TaskResult> = (
  payload: Payload,
  context: JobContext,
) => Promise<Result> | Result;

/**
 * A task's options, as written in its module. Every field but `handler` is optional. `Input` is what
 * callers send (the `payloadSchema`'s input), `Payload` what the handler gets (its output).
 */
export interface TaskOptions<Payload = JsonValue, Result extends TaskResult = TaskResult, Input = Payload> {
  handler: TaskHandler<Payload, Result>;
  /** At most this many jobs of the task run at once, across all workers. @default unlimited */
  maxRunningJobs?: number;
  /**
   * At most `max` jobs of the task start in any `perSeconds` seconds, across all workers (for tasks that
   * call rate-limited APIs). Starts are paced, `(perSeconds + 0.1 s) / max` apart (no bursts); jobs beyond
   * the rate wait in the task's line, in order, and none is dropped. `max` 1–10,000, `perSeconds`
   * 1–86,400. @default unlimited
   */
  rateLimit?: RateLimit;
  /** Seconds after its start time that a job may still start; schedules may override. @default no deadline */
  misfireGraceSeconds?: number;
  /**
   * After this many seconds the handler's `signal` is aborted and the run counts as a `TimeoutError`
   * (retried); the handler must then stop (see `JobContext.signal`). @default 60
   */
  timeoutSeconds?: number;
  /** @default { maxAttempts: 3, backoffSeconds: 2, maxBackoffSeconds: 300 } */
  retry?: Partial<RetryPolicy>;
  /** How long results are kept. @default the deployment's `SUNDIAL_DEFAULT_RESULT_TTL_SECONDS` (7 days unless set) */
  resultTtlSeconds?: number;
  /** @default 'failures' */
  events?: EventsPolicy;
  /** Validates payloads when schedules and jobs are added (any Standard Schema: zod, valibot, arktype…). */
  payloadSchema?: StandardSchemaV1<Input, Payload>;
  /**
   * Schedules of this task declared in code: `cdk deploy` and `npm start` create, update and remove
   * them (docs/code-schedules.md). Each payload is typed, and checked, by `payloadSchema`.
   *
   * @example
   * schedules: [{ id: 'ops-weekday-report', trigger: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', payload: { team: 'ops' } }]
   */
  schedules?: readonly ScheduleDeclaration<NoInfer<Input>>[];
}

/**
 * A task definition with every default filled in. `Input` and `Result` are only types (what callers
 * send and what the handler returns), read by the typed client.
 */
export interface TaskDefinition<Input = unknown, Result = TaskResult> {
  handler: TaskHandler<unknown, TaskResult>;
  maxRunningJobs: number | null;
  rateLimit: RateLimit | null;
  misfireGraceSeconds: number | null;
  timeoutSeconds: number;
  retry: RetryPolicy;
  /** `null`: the deployment's default (`SUNDIAL_DEFAULT_RESULT_TTL_SECONDS`); see `resultTtlSecondsOf`. */
  resultTtlSeconds: number | null;
  events: EventsPolicy;
  payloadSchema: StandardSchemaV1 | null;
  /** Its schedules declared in code, as written (checked when the tasks are loaded and at synth). */
  schedules: readonly ScheduleDeclaration<unknown>[];
  readonly kind: 'sundial-task';
  /** Types only, never set. */
  readonly '~types'?: { readonly input: Input; readonly result: Result };
}

export const TASK_DEFAULTS = {
  timeoutSeconds: 60,
  retry: { maxAttempts: 3, backoffSeconds: 2, maxBackoffSeconds: 300 },
  resultTtlSeconds: 7 * 24 * 3600,
  events: 'failures',
} as const satisfies Partial<TaskDefinition>;

export const EVENTS_POLICIES: readonly EventsPolicy[] = ['none', 'failures', 'all'];

export { MAX_RESULT_TTL_SECONDS } from '../../core/model/run-settings';

/** How long a task's results are kept: its own `resultTtlSeconds`, else the deployment's default. */
export function resultTtlSecondsOf(definition: TaskDefinition | undefined, defaultSeconds: number): number {
  return definition?.resultTtlSeconds ?? defaultSeconds;
}

/** The longest a handler may run: Lambda's own limit. */
export const MAX_TIMEOUT_SECONDS = LIMITS.maxLambdaTimeoutSeconds;

/**
 * Declares a task. Export it as the default export of a module in `functions/`; the file name is the task id.
 * An option it does not know (`maxRuningJobs`, or one of a newer version) throws a `TaskOptionsError`
 * naming it and the closest known one, so the module does not load: not in `npm start`, not in the
 * worker, not in `cdk synth`. The values are checked when the task registry loads the module, which
 * names the file and lists every problem at once. The handler must honour `signal` (aborted at the
 * deadline; see `JobContext`).
 *
 * @example
 * // functions/send-report.ts
 * import * as z from 'zod';
 * import { defineTask } from '../lib/runtime/sdk';
 *
 * export default defineTask({
 *   payloadSchema: z.object({ team: z.string() }),
 *   maxRunningJobs: 2,
 *   retry: { maxAttempts: 5 },
 *   async handler({ team }, { logger, signal }) {
 *     const response = await fetch(`https://reports.example.com/${team}`, { signal });
 *     logger.info('report sent', { status: response.status });
 *     return { status: response.status };
 *   },
 * });
 */
export function defineTask<Payload = JsonValue, Result extends TaskResult = TaskResult, Input = Payload>(
  options: TaskOptions<Payload, Result, Input>,
): TaskDefinition<Input, Awaited<Result>> {
  refuseUnknownOptions(options);
  return {
    handler: options.handler as TaskDefinition['handler'],
    maxRunningJobs: options.maxRunningJobs ?? null,
    rateLimit: options.rateLimit ?? null,
    misfireGraceSeconds: options.misfireGraceSeconds ?? null,
    timeoutSeconds: options.timeoutSeconds ?? TASK_DEFAULTS.timeoutSeconds,
    retry: {
      maxAttempts: options.retry?.maxAttempts ?? TASK_DEFAULTS.retry.maxAttempts,
      backoffSeconds: options.retry?.backoffSeconds ?? TASK_DEFAULTS.retry.backoffSeconds,
      maxBackoffSeconds: options.retry?.maxBackoffSeconds ?? TASK_DEFAULTS.retry.maxBackoffSeconds,
    },
    resultTtlSeconds: options.resultTtlSeconds ?? null,
    events: options.events ?? TASK_DEFAULTS.events,
    payloadSchema: (options.payloadSchema as StandardSchemaV1 | undefined) ?? null,
    schedules: options.schedules ?? [],
    kind: 'sundial-task',
  };
}

/** Everything wrong with a definition, each naming its option; empty when it is valid. */
export function taskDefinitionProblems(definition: TaskDefinition): string[] {
  const problems: string[] = [];
  const { retry } = definition;
  if (typeof definition.handler !== 'function') problems.push('handler must be a function');
  if (definition.maxRunningJobs !== null && !isPositiveInteger(definition.maxRunningJobs)) {
    problems.push(`maxRunningJobs must be a positive integer, got ${show(definition.maxRunningJobs)}`);
  }
  problems.push(...rateLimitProblems(definition.rateLimit));
  if (definition.misfireGraceSeconds !== null && !isNonNegative(definition.misfireGraceSeconds)) {
    problems.push(`misfireGraceSeconds must be a number >= 0, got ${show(definition.misfireGraceSeconds)}`);
  }
  if (!isPositiveInteger(definition.timeoutSeconds) || definition.timeoutSeconds > MAX_TIMEOUT_SECONDS) {
    problems.push(
      `timeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS}, got ${show(definition.timeoutSeconds)}`,
    );
  }
  if (!isPositiveInteger(retry.maxAttempts)) {
    problems.push(
      `retry.maxAttempts must be a positive integer (1 = no retries), got ${show(retry.maxAttempts)}`,
    );
  }
  if (!isNonNegative(retry.backoffSeconds)) {
    problems.push(`retry.backoffSeconds must be a number >= 0, got ${show(retry.backoffSeconds)}`);
  }
  if (!isNonNegative(retry.maxBackoffSeconds) || retry.maxBackoffSeconds < retry.backoffSeconds) {
    problems.push(
      `retry.maxBackoffSeconds must be a number >= retry.backoffSeconds (${show(retry.backoffSeconds)}), got ${show(retry.maxBackoffSeconds)}`,
    );
  }
  if (definition.resultTtlSeconds !== null && !isPositiveInteger(definition.resultTtlSeconds)) {
    problems.push(`resultTtlSeconds must be a positive integer, got ${show(definition.resultTtlSeconds)}`);
  } else if (definition.resultTtlSeconds !== null && definition.resultTtlSeconds > MAX_RESULT_TTL_SECONDS) {
    problems.push(
      `resultTtlSeconds must be at most ${MAX_RESULT_TTL_SECONDS} (ten years), got ${definition.resultTtlSeconds}`,
    );
  }
  if (!EVENTS_POLICIES.includes(definition.events)) {
    problems.push(`events must be one of ${EVENTS_POLICIES.join(', ')}, got ${show(definition.events)}`);
  }
  if (
    definition.payloadSchema !== null &&
    typeof definition.payloadSchema?.['~standard']?.validate !== 'function'
  ) {
    problems.push('payloadSchema must be a Standard Schema (zod, valibot, arktype…)');
  }
  if (!Array.isArray(definition.schedules)) {
    problems.push(`schedules must be an array of schedule declarations, got ${show(definition.schedules)}`);
  }
  return problems;
}

function rateLimitProblems(rateLimit: unknown): string[] {
  if (rateLimit === null) return [];
  if (typeof rateLimit !== 'object' || rateLimit === undefined) {
    return [`rateLimit must be an object { max, perSeconds }, got ${show(rateLimit)}`];
  }
  const fields = rateLimit as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['max', 'perSeconds'] as const) {
    const { min, max } = RATE_LIMIT_BOUNDS[key];
    const value = fields[key];
    if (!isPositiveInteger(value) || (value as number) < min || (value as number) > max) {
      problems.push(`rateLimit.${key} must be an integer from ${min} to ${max}, got ${show(value)}`);
    }
  }
  return problems;
}

/** True for a value returned by `defineTask` (checked by its marker, so copies of the module still match). */
export function isTaskDefinition(value: unknown): value is TaskDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'sundial-task';
}

function isPositiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function isNonNegative(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}
