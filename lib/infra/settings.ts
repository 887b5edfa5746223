import { RemovalPolicy, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { DEFAULT_SHARDS, MAX_SHARDS } from '../adapters/dynamodb/table-design';
import {
  DISPATCH,
  defaultCriticalConcurrency,
  defaultWorkerTimeoutSeconds,
  LIMITS,
  LOG_LEVELS,
} from '../core/limits';
import { resolveBilling } from './billing';
import {
  type SundialBilling,
  type SundialLogLevel,
  type SundialProps,
  WORKER_TIMEOUT_MARGIN_SECONDS,
} from './props';

/** The props with every default filled in and every value checked. */
export interface SundialSettings {
  readonly shards: number;
  readonly dispatchers: number;
  readonly workerBatchSize: number;
  readonly workerMaxConcurrency: number;
  readonly criticalWorkerMaxConcurrency: number;
  readonly workerTimeoutSeconds: number;
  readonly workerMemorySize: number;
  readonly defaultResultTtlSeconds: number | null;
  readonly removalPolicy: RemovalPolicy;
  readonly billing: Required<SundialBilling>;
  readonly tracing: boolean;
  readonly fireLagP99ThresholdMs: number;
  readonly tickReservedConcurrency: number | null;
  readonly maxReceiveCount: number;
  readonly logRetention: logs.RetentionDays;
  readonly logLevel: SundialLogLevel;
  readonly maxScheduleRemovalPercent: number;
  readonly keepSchedulesOnDelete: boolean;
  /** The jobs queue's visibility timeout: 6 × the worker timeout (AWS's advice for Lambda consumers). */
  readonly queueVisibilityTimeoutSeconds: number;
}

/** A task file as seen at synth: its id and, when it could be read, its `timeoutSeconds`. */
export interface TaskTimeout {
  readonly id: string;
  readonly timeoutSeconds: number;
  /** The task's `maxRunningJobs`, when it has one. */
  readonly maxRunningJobs?: number;
}

/** Invalid {@link SundialProps} (or task modules); `problems` lists every one of them. */
export class SundialPropsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid Sundial configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'SundialPropsError';
  }
}

/**
 * Fills in the defaults and checks every value, collecting all problems (including `taskProblems`,
 * found while reading `functions/`) into one {@link SundialPropsError}.
 */
export function resolveSettings(
  props: SundialProps,
  tasks: readonly TaskTimeout[],
  taskProblems: readonly string[] = [],
): SundialSettings {
  const problems: string[] = [...taskProblems];
  const check = new Checker(problems);

  const longestTask = tasks.reduce<TaskTimeout | undefined>(
    (longest, task) => (longest && longest.timeoutSeconds >= task.timeoutSeconds ? longest : task),
    undefined,
  );
  const neededTimeout = (longestTask?.timeoutSeconds ?? 0) + WORKER_TIMEOUT_MARGIN_SECONDS;
  const workerTimeoutSeconds = check.integer(
    'workerTimeoutSeconds',
    props.workerTimeoutSeconds,
    defaultWorkerTimeoutSeconds(longestTask?.timeoutSeconds ?? 0),
    1,
    LIMITS.maxLambdaTimeoutSeconds,
  );
  if (!isKnown(workerTimeoutSeconds)) {
    problems.push(knownAtSynth('workerTimeoutSeconds', "the queue's visibility timeout"));
  }
  if (longestTask && isKnown(workerTimeoutSeconds) && workerTimeoutSeconds < neededTimeout) {
    const source =
      props.workerTimeoutSeconds === undefined
        ? `the longest Lambda timeout (${LIMITS.maxLambdaTimeoutSeconds} s)`
        : `workerTimeoutSeconds (${workerTimeoutSeconds})`;
    problems.push(
      `task '${longestTask.id}' has timeoutSeconds ${longestTask.timeoutSeconds}, but ${source} leaves less than ${WORKER_TIMEOUT_MARGIN_SECONDS} s beyond it: lower the task's timeoutSeconds to at most ${workerTimeoutSeconds - WORKER_TIMEOUT_MARGIN_SECONDS}${props.workerTimeoutSeconds === undefined ? '' : ` or raise workerTimeoutSeconds to ${neededTimeout}`}`,
    );
  }

  const tickReservedConcurrency =
    props.tickReservedConcurrency === null
      ? null
      : check.integer(
          'tickReservedConcurrency',
          props.tickReservedConcurrency,
          3,
          2,
          1_000,
          ' (ticks overlap safely; 1 would make a slow tick block the next; use null to reserve nothing)',
        );

  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
  if (removalPolicy === RemovalPolicy.SNAPSHOT) {
    problems.push('removalPolicy SNAPSHOT is not supported by DynamoDB tables: use RETAIN or DESTROY');
  }
  const logLevel = props.logLevel ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`logLevel must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }

  const shards = check.integer('shards', props.shards, DEFAULT_SHARDS, 1, MAX_SHARDS);
  const dispatchers = check.integer('dispatchers', props.dispatchers, DISPATCH.dispatchers, 1, MAX_SHARDS);
  if (isKnown(shards) && isKnown(dispatchers) && dispatchers > shards) {
    problems.push(
      `dispatchers (${dispatchers}) must be at most shards (${shards}): each dispatcher reads whole shards`,
    );
  }

  const settings: SundialSettings = {
    shards,
    dispatchers,
    workerBatchSize: check.integer('workerBatchSize', props.workerBatchSize, 10, 1, 10),
    workerMaxConcurrency: check.integer('workerMaxConcurrency', props.workerMaxConcurrency, 10, 2, 1_000),
    criticalWorkerMaxConcurrency: check.integer(
      'criticalWorkerMaxConcurrency',
      props.criticalWorkerMaxConcurrency,
      defaultCriticalConcurrency(
        tasks.map((task) => task.maxRunningJobs ?? 0),
        1_000,
      ),
      2,
      1_000,
    ),
    workerTimeoutSeconds,
    workerMemorySize: check.integer('workerMemorySize', props.workerMemorySize, 1024, 128, 10_240),
    defaultResultTtlSeconds:
      props.defaultResultTtlSeconds === undefined
        ? null
        : check.integer('defaultResultTtlSeconds', props.defaultResultTtlSeconds, 0, 1, 10 * 366 * 86_400),
    removalPolicy,
    billing: resolveBilling(props.billing, problems),
    tracing: props.tracing ?? true,
    fireLagP99ThresholdMs: check.integer(
      'fireLagP99ThresholdMs',
      props.fireLagP99ThresholdMs,
      5_000,
      1,
      3_600_000,
    ),
    tickReservedConcurrency,
    maxReceiveCount: check.integer(
      'maxReceiveCount',
      props.maxReceiveCount,
      500,
      10,
      1_000,
      ' (tasks at their limit return messages to the queue, and each return counts)',
    ),
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    logLevel,
    maxScheduleRemovalPercent: check.integer(
      'maxScheduleRemovalPercent',
      props.maxScheduleRemovalPercent,
      50,
      0,
      100,
    ),
    keepSchedulesOnDelete: props.keepSchedulesOnDelete ?? false,
    queueVisibilityTimeoutSeconds: Math.min(LIMITS.maxVisibilityTimeoutSeconds, 6 * workerTimeoutSeconds),
  };
  if (problems.length > 0) throw new SundialPropsError(problems);
  return settings;
}

/** For a prop other resources are sized from: a deploy-time token would reach them as a huge negative number. */
function knownAtSynth(prop: string, sizes: string): string {
  return `${prop}: must be a number known at synth, not a deploy-time token (it sizes ${sizes})`;
}

function isKnown(value: number): boolean {
  return !Token.isUnresolved(value);
}

/** Checks numbers, collecting problems; unresolved tokens (values known only at deploy time) pass. */
class Checker {
  constructor(private readonly problems: string[]) {}

  integer(
    name: string,
    value: number | undefined,
    fallback: number,
    min: number,
    max: number,
    hint = '',
  ): number {
    if (value === undefined) return fallback;
    if (Token.isUnresolved(value)) return value;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got ${value}${hint}`);
      return fallback;
    }
    return value;
  }
}
