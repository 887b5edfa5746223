import { DEFAULT_SHARDS, MAX_SHARDS } from '../adapters/dynamodb/table-design';
import { DISPATCH, LOG_LEVELS, type LogLevel } from '../core/limits';
import { DEFAULT_UNCLAIMED_RESEND_MS } from '../core/ports/job-store';
import {
  FAILURE_DESTINATIONS_VARIABLE,
  type FailureDestinationConfig,
  parseFailureDestinations,
} from './failure-destinations';
import { parseTaskLimits, TASK_LIMITS_VARIABLE, type TaskLimits } from './task-limits';
import { MAX_RESULT_TTL_SECONDS, TASK_DEFAULTS } from './tasks/define-task';

/** Everything the Lambdas read from the environment, once, at cold start. Documented in docs/runtime-config.md. */
export interface RuntimeConfig {
  tableName: string;
  queueUrl: string;
  /** Where critical jobs go (a queue consumed apart from the jobs queue); `null` = to the jobs queue. */
  criticalQueueUrl: string | null;
  /** Where the worker moves messages it cannot read; `null` = they stay until the redrive policy moves them. */
  deadLetterQueueUrl: string | null;
  /** Job events go here; `null` = events are not published. */
  eventBusName: string | null;
  shards: number;
  /** Parallel dispatchers the tick hands the due shards to, each with a lease (ADR 0006). */
  dispatchers: number;
  /** The dispatcher Lambda the tick invokes asynchronously; `null` = dispatchers run in the tick's process. */
  dispatcherFunctionName: string | null;
  maxFiresPerPlan: number;
  tickBudgetMs: number;
  /** The earliest the tick lets a fire reach the workers before its run time (ms); 0: sent at once. */
  sendPhaseToleranceMs: number;
  tickConcurrency: number;
  /** Parked jobs a tick leases per round to send. */
  parkedBatchSize: number;
  reapBatchSize: number;
  counterRepairIntervalSeconds: number;
  jobLeaseMarginSeconds: number;
  /** How long after its run time an added job nobody claimed is sent again by the tick (its send may have been lost). */
  unclaimedResendSeconds: number;
  workerSafetyMarginMs: number;
  /** How long results are kept for tasks that do not set `resultTtlSeconds`. */
  defaultResultTtlSeconds: number;
  logLevel: LogLevel;
  metricsNamespace: string;
  /** Per task, where its jobs that failed for good (`error`, `abandoned`) are sent; `{}` = nowhere. */
  failureDestinations: Readonly<Record<string, FailureDestinationConfig>>;
  /** Each task's limits as deployed (`SUNDIAL_TASK_LIMITS`), for the tick's wake-ups; null when unset. */
  taskLimits: ReadonlyMap<string, TaskLimits> | null;
}

export type { LogLevel };

/** Thrown at cold start when the environment is incomplete or wrong; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid Sundial configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads and checks the configuration. Every problem is reported at once, each naming its variable.
 * AWS endpoints are not configured here: the SDK reads `AWS_ENDPOINT_URL_DYNAMODB`, `…_SQS` and
 * `…_EVENTBRIDGE` itself, so local runs and AWS run the same code.
 */
export function readConfig(env: Env = process.env): RuntimeConfig {
  const problems: string[] = [];
  const reader = new EnvReader(env, problems);
  const config: RuntimeConfig = {
    tableName: reader.required('SUNDIAL_TABLE_NAME'),
    queueUrl: reader.required('SUNDIAL_QUEUE_URL'),
    criticalQueueUrl: reader.optional('SUNDIAL_CRITICAL_QUEUE_URL'),
    deadLetterQueueUrl: reader.optional('SUNDIAL_DEAD_LETTER_QUEUE_URL'),
    eventBusName: reader.optional('SUNDIAL_EVENT_BUS_NAME'),
    shards: reader.integer('SUNDIAL_SHARDS', DEFAULT_SHARDS, 1, MAX_SHARDS),
    dispatchers: reader.integer('SUNDIAL_DISPATCHERS', DISPATCH.dispatchers, 1, MAX_SHARDS),
    dispatcherFunctionName: reader.optional('SUNDIAL_DISPATCHER_FUNCTION'),
    maxFiresPerPlan: reader.integer('SUNDIAL_MAX_FIRES_PER_PLAN', 1_000, 1, 100_000),
    tickBudgetMs: reader.integer(
      'SUNDIAL_TICK_BUDGET_MS',
      DISPATCH.tickBudgetMs,
      1_000,
      DISPATCH.tickBudgetMs,
    ),
    sendPhaseToleranceMs: reader.integer('SUNDIAL_SEND_PHASE_TOLERANCE_MS', 50, 0, 1_000),
    tickConcurrency: reader.integer('SUNDIAL_TICK_CONCURRENCY', 8, 1, 64),
    parkedBatchSize: reader.integer('SUNDIAL_PARKED_BATCH_SIZE', 100, 1, 1_000),
    reapBatchSize: reader.integer('SUNDIAL_REAP_BATCH_SIZE', 100, 1, 1_000),
    counterRepairIntervalSeconds: reader.integer('SUNDIAL_COUNTER_REPAIR_INTERVAL_SECONDS', 600, 0, 86_400),
    jobLeaseMarginSeconds: reader.integer('SUNDIAL_JOB_LEASE_MARGIN_SECONDS', 30, 1, 3_600),
    unclaimedResendSeconds: reader.integer(
      'SUNDIAL_UNCLAIMED_RESEND_SECONDS',
      DEFAULT_UNCLAIMED_RESEND_MS / 1000,
      5,
      86_400,
    ),
    workerSafetyMarginMs: reader.integer('SUNDIAL_WORKER_SAFETY_MARGIN_MS', 3_000, 0, 60_000),
    defaultResultTtlSeconds: reader.integer(
      'SUNDIAL_DEFAULT_RESULT_TTL_SECONDS',
      TASK_DEFAULTS.resultTtlSeconds,
      1,
      MAX_RESULT_TTL_SECONDS,
    ),
    logLevel: reader.oneOf('SUNDIAL_LOG_LEVEL', LOG_LEVELS, 'info'),
    metricsNamespace: reader.optional('SUNDIAL_METRICS_NAMESPACE') ?? 'Sundial',
    failureDestinations: parseFailureDestinations(reader.optional(FAILURE_DESTINATIONS_VARIABLE), problems),
    taskLimits: parseTaskLimits(reader.optional(TASK_LIMITS_VARIABLE), problems),
  };
  if (config.dispatchers > config.shards) {
    problems.push(
      `SUNDIAL_DISPATCHERS (${config.dispatchers}) must be at most SUNDIAL_SHARDS (${config.shards}): each dispatcher reads whole shards`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  required(name: string): string {
    const value = this.optional(name);
    if (value === null) this.problems.push(`${name} is required`);
    return value ?? '';
  }

  optional(name: string): string | null {
    const value = this.env[name]?.trim();
    return value ? value : null;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.optional(name);
    if (text === null) return fallback;
    const value = Number(text);
    if (!/^-?\d+$/.test(text) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got '${text}'`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const text = this.optional(name);
    if (text === null) return fallback;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got '${text}'`);
    return fallback;
  }
}
