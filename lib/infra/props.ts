import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { AppScheduleDeclaration } from '../core/code-schedules/declaration';
import { LIMITS, type LogLevel } from '../core/limits';

/** Log levels the runtime understands (`SUNDIAL_LOG_LEVEL`). */
export type SundialLogLevel = LogLevel;

/**
 * Settings of a {@link Sundial} deployment. Every field is optional; the defaults suit a team running
 * thousands of schedules. Invalid values fail the synth with every problem listed at once.
 */
export interface SundialProps {
  /**
   * Shards of the due and running indexes: the tick queries each in parallel. More shards spread
   * write-heavy schedules over more index partitions; fewer make quiet ticks cheaper. Raising it for an
   * existing table is safe (items keep the shard they were written with, which the new count still
   * reads, and move to their new shard on their next write); lowering it is refused by nothing but
   * strands the schedules of the shards dropped (ADR 0006, "Changing the shard count").
   * @default 16 (`DEFAULT_SHARDS` of the table design)
   */
  readonly shards?: number;

  /**
   * Dispatchers each tick (one a minute) starts on the due shards (ADR 0006): the tick leases every free
   * shard and invokes the dispatcher Lambda asynchronously once per set of shards, so the notes of due
   * schedules are read, sent and moved on by this many Lambdas at once. 1 to `shards`.
   * docs/benchmarks.md sizes it: 8 dispatchers over 16 shards carry 10M hourly schedules and a herd of
   * 1M schedules due at the same second.
   * @default 8
   */
  readonly dispatchers?: number;

  /**
   * Messages per worker invocation (the SQS event source's batch size), 1 to 10.
   * @default 10
   */
  readonly workerBatchSize?: number;

  /**
   * The most worker invocations the SQS event source runs at once (2 to 1,000). Caps the load on
   * downstream systems that tasks call; per-task limits are the tasks' own `maxRunningJobs`.
   * @default 10
   */
  readonly workerMaxConcurrency?: number;

  /**
   * The most worker invocations the critical queue's event source runs at once (2 to 1,000), on top of
   * `workerMaxConcurrency`: the share kept for critical jobs, however long the jobs queue's backlog, and
   * for jobs woken from a waiting line (each holds a slot of its task while its message travels there).
   * @default 2 plus the sum of the tasks' `maxRunningJobs` (at most 1,000)
   */
  readonly criticalWorkerMaxConcurrency?: number;

  /**
   * The worker Lambda's timeout. Must leave {@link WORKER_TIMEOUT_MARGIN_SECONDS} beyond the longest
   * task `timeoutSeconds` found in `functionsDir` (claiming, writing the result, publishing events).
   * @default the longest task timeout plus the margin, at least 90 s
   */
  readonly workerTimeoutSeconds?: number;

  /**
   * Memory of the worker Lambda in MiB (also buys CPU: 1,769 MiB is one vCPU).
   * @default 1024
   */
  readonly workerMemorySize?: number;

  /**
   * How long results of tasks that do not set `resultTtlSeconds` are kept (`SUNDIAL_DEFAULT_RESULT_TTL_SECONDS`).
   * @default the runtime's default (7 days)
   */
  readonly defaultResultTtlSeconds?: number;

  /**
   * How the table is billed: on demand (pay per request, follows bursts) or provisioned capacity with
   * auto scaling between bounds (cheaper at a steady load).
   * @default { mode: 'on-demand' }
   */
  readonly billing?: SundialBilling;

  /**
   * What happens to the table and the log groups when the stack is deleted or they are replaced.
   * `RETAIN` also turns on the table's deletion protection. Queues and the event bus hold nothing that
   * outlives a deployment and are always destroyed.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * Where alarms send their ALARM and OK notifications.
   * @default no notifications (alarms are still created and shown on the dashboard)
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * The bus that job events (`job.succeeded`, `job.failed`, …) are published to.
   * @default a new bus, `<stack>-sundial-events`
   */
  readonly eventBus?: events.IEventBus;

  /**
   * Per task id, where its jobs that failed for good (`error` after the last attempt, `abandoned`) are
   * sent, one message each: `{ queue }` (the worker may only `sqs:SendMessage` to it) or `{ eventBus }`
   * (only `events:PutEvents` on it; detail-type `job.failed_for_good`). Body: docs/runtime-config.md.
   * @default none
   */
  readonly failureDestinations?: Readonly<Record<string, SundialFailureDestination>>;

  /**
   * Active X-Ray tracing on the three Lambdas (sampled: about one request a second plus 5%).
   * @default true
   */
  readonly tracing?: boolean;

  /**
   * The fire-lag p99 (job start minus fire time) above which the fire-lag alarm goes off, in ms.
   * @default 5000
   */
  readonly fireLagP99ThresholdMs?: number;

  /**
   * The folder of task modules: each `*.ts` file is a task whose id is the file name (kebab-case).
   * @default `functions/` at the project root
   */
  readonly functionsDir?: string;

  /**
   * Schedules declared in the CDK app, beside those the tasks declare (`schedules` in `defineTask`);
   * each names its task. Checked at synth (trigger, time zone, the payload against the task's schema,
   * unique ids: one bad schedule fails the synth naming it and its field); every `cdk deploy` then
   * creates, updates and removes the schedules declared in code (docs/code-schedules.md).
   * @default none
   */
  readonly schedules?: readonly AppScheduleDeclaration[];

  /**
   * A deploy that would remove more than this share of the schedules declared in code, or all of them,
   * fails and names them (nothing changes). 100 allows any removal. Removing what the previous deploy
   * added is not counted, so that deploy's rollback goes through.
   * @default 50
   */
  readonly maxScheduleRemovalPercent?: number;

  /**
   * Deleting the stack keeps the schedules declared in code (in a retained table) rather than removing
   * them.
   * @default false
   */
  readonly keepSchedulesOnDelete?: boolean;

  /**
   * Reserved concurrency of the tick Lambda. Ticks are safe to overlap (schedules are leased), so this
   * is a ceiling, not a mutex: at least 2, so a slow tick never blocks the next one. Set `null` to
   * reserve nothing (accounts with the default 10-execution limit cannot reserve any).
   * @default 3
   */
  readonly tickReservedConcurrency?: number | null;

  /**
   * Receives of one message before SQS moves it to the dead-letter queue. Every return of a message
   * whose task is at its `maxRunningJobs` limit counts as a receive (the worker hides it for a growing
   * wait of up to 300 s, about 225 s on average), so this must be high: 500 lets a job wait about a day
   * for a slot. Failures of the handler itself are retried by the worker (`retry.maxAttempts`), and a
   * crashed run is reaped through its lease, so neither depends on redelivery.
   * @default 500
   */
  readonly maxReceiveCount?: number;

  /**
   * Retention of the three Lambdas' log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * The runtime's log level (`SUNDIAL_LOG_LEVEL`).
   * @default 'info'
   */
  readonly logLevel?: SundialLogLevel;
}

/** Capacity units auto scaling keeps between, for the table and for each of its indexes. */
export interface SundialCapacityRange {
  readonly min: number;
  readonly max: number;
}

/**
 * Provisioned capacity with target-tracking auto scaling, for the table and each index. Cheaper than
 * on-demand under a steady load (docs/deploy.md compares both); a burst above what is provisioned is
 * throttled until scaling catches up (minutes), which the store rides out with retries only briefly:
 * size `min` for the top-of-the-hour peak of your schedules, not for the average.
 */
export interface SundialProvisionedBilling {
  readonly mode: 'provisioned';
  readonly readCapacity: SundialCapacityRange;
  readonly writeCapacity: SundialCapacityRange;
  /**
   * The utilisation auto scaling aims for, in percent (20 to 90).
   * @default 70
   */
  readonly targetUtilizationPercent?: number;
}

/** How the table is billed. */
export type SundialBilling = { readonly mode: 'on-demand' } | SundialProvisionedBilling;

/** Seconds the worker's timeout must leave beyond the longest task timeout. */
export const WORKER_TIMEOUT_MARGIN_SECONDS = LIMITS.workerTimeoutMarginSeconds;

/** Where one task's jobs that failed for good go: an SQS queue, or an EventBridge bus (rules route them on). */
export type SundialFailureDestination =
  | { readonly queue: sqs.IQueue }
  | { readonly eventBus: events.IEventBus };
