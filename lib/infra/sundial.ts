import { join, resolve } from 'node:path';
import { type CustomResource, Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DISPATCH } from '../core/limits';
import { type SundialAlarmSet, SundialAlarms } from './alarms';
import { checkDeclaredSchedules, codeSchedulesResource } from './code-schedules';
import { createDashboard } from './dashboard';
import { RUNTIME_MODULES, writeEntry } from './entries';
import { failureDestinationsEnvironment, grantFailureDestinations } from './failure-destinations';
import { SundialFunction, type SundialFunctionProps } from './functions';
import { EMF, SundialMetrics } from './metrics';
import { acknowledgeFindings } from './nag';
import {
  grantInvokeDispatcher,
  grantPublish,
  grantSend,
  grantTableAccess,
  grantWorkerQueue,
  TABLE_ACCESS,
} from './permissions';
import type { SundialProps } from './props';
import { SundialQueues } from './queues';
import { resolveSettings, type SundialSettings } from './settings';
import { createTable } from './table';
import { discoverTasks, inspectTaskTimeouts, type TaskFile } from './tasks';

/** The project root: the folder of package.json and package-lock.json (lib/infra/../..). */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

/** The tick's (and dispatcher's) Lambda timeout; the runtime keeps its work within `DISPATCH.tickBudgetMs`. */
const TICK_TIMEOUT_SECONDS = 60;
/** The admin API adds up to 1,000 jobs in one call. */
const ADMIN_TIMEOUT_SECONDS = 60;
/** The reconcile of schedules declared in code writes one schedule at a time: thousands take minutes. */
const SCHEDULES_TIMEOUT_SECONDS = 600;

/**
 * Sundial: scheduled jobs on DynamoDB, SQS, EventBridge and Lambda (the README's architecture).
 *
 * Creates the table, the jobs queue and the queue for critical jobs with their DLQs, the tick (an EventBridge rule every `tickRate`
 * minutes), the worker (an SQS event source with partial batch failures), the admin Lambda (invoked
 * with IAM only, no URL), the job-events bus (unless given), least-privilege roles, alarms and a
 * dashboard. Task modules are read from `functionsDir` at synth: each file is bundled into the worker
 * and the admin Lambdas through a generated entry, and the worker's timeout covers the longest task.
 *
 * @example
 * new Sundial(stack, 'Sundial', { alarmTopic: topic, workerMaxConcurrency: 20 });
 */
export class Sundial extends Construct {
  /** Schedules, jobs with their results, and task counters (one table, sparse indexes). */
  readonly table: dynamodb.Table;
  /** Job messages from the tick and the admin API to the worker. */
  readonly queue: sqs.Queue;
  /** Job messages received `maxReceiveCount` times without being deleted. */
  readonly deadLetterQueue: sqs.Queue;
  /** Critical job messages, consumed by an event source of their own (`criticalWorkerMaxConcurrency`). */
  readonly criticalQueue: sqs.Queue;
  /** Critical job messages received `maxReceiveCount` times without being deleted. */
  readonly criticalDeadLetterQueue: sqs.Queue;
  /** EventBridge events the tick rule could not deliver. */
  readonly tickDeadLetterQueue: sqs.Queue;
  /** Where the worker publishes job events (given as a prop, or created). */
  readonly eventBus: events.IEventBus;
  /** `rate(tickRate minutes)` → the tick Lambda. */
  readonly tickRule: events.Rule;
  /** Leases due schedules and sends their fire times; reaps expired leases; repairs counters. */
  readonly tickFunction: lambda.IFunction;
  /** Dispatches the due schedules of the shards a tick hands it (ADR 0006); absent with `dispatchers: 0`. */
  readonly dispatcherFunction: lambda.IFunction;
  /** Claims and runs jobs from the queue (partial batch failures). */
  readonly workerFunction: lambda.IFunction;
  /** The admin API: invoke it with IAM (`lambda:InvokeFunction`); it has no URL. */
  readonly adminFunction: lambda.IFunction;
  /** Reconciles the schedules declared in code at each deploy (the custom resource's handler). */
  readonly schedulesFunction: lambda.IFunction;
  /** `Custom::SundialSchedules`: its properties are the schedules declared in code. */
  readonly codeSchedules: CustomResource;
  /** Jobs by outcome, fire lag, running jobs per task, queue depth and age, Lambda health, alarms. */
  readonly dashboard: cloudwatch.Dashboard;
  /** Every alarm, by what it watches. */
  readonly alarms: SundialAlarmSet;
  /** Every setting, defaults filled in. */
  readonly settings: SundialSettings;
  /** The tasks found in `functionsDir`. */
  readonly tasks: readonly TaskFile[];

  constructor(scope: Construct, id: string, props: SundialProps = {}) {
    super(scope, id);
    const functionsDir = resolve(props.functionsDir ?? join(PROJECT_ROOT, 'functions'));
    const discovery = discoverTasks(functionsDir, PROJECT_ROOT);
    const inspection = inspectTaskTimeouts(discovery.tasks, PROJECT_ROOT);
    const readable = discovery.problems.length === 0 && inspection.problems.length === 0;
    const declared = readable
      ? checkDeclaredSchedules(
          functionsDir,
          props.schedules ?? [],
          inspection.declaresSchedules,
          PROJECT_ROOT,
        )
      : { schedules: [], problems: [] };
    const settings = resolveSettings(props, inspection.timeouts, [
      ...discovery.problems,
      ...inspection.problems,
      ...declared.problems,
    ]);
    this.settings = settings;
    this.tasks = discovery.tasks;

    this.table = createTable(this, settings.removalPolicy, settings.billing);
    const queues = new SundialQueues(this, 'Queues', {
      visibilityTimeoutSeconds: settings.queueVisibilityTimeoutSeconds,
      maxReceiveCount: settings.maxReceiveCount,
    });
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    this.criticalQueue = queues.criticalQueue;
    this.criticalDeadLetterQueue = queues.criticalDeadLetterQueue;
    this.tickDeadLetterQueue = queues.tickDeadLetterQueue;
    this.eventBus =
      props.eventBus ??
      new events.EventBus(this, 'EventBus', {
        description: 'Sundial job and schedule events (job.failed, schedule.removed, …)',
      });

    const environment = this.environment(settings);
    const failureDestinations = props.failureDestinations ?? {};
    const common = {
      projectRoot: PROJECT_ROOT,
      tracing: settings.tracing,
      logRetention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    };
    const tick = new SundialFunction(this, 'Tick', {
      ...common,
      entry: join(PROJECT_ROOT, RUNTIME_MODULES.tick.file),
      description: 'Sundial tick: leases due schedules and sends their fire times to the jobs queue',
      timeout: Duration.seconds(TICK_TIMEOUT_SECONDS),
      memorySize: 512,
      environment: {
        ...environment,
        // The tick bundles no task code: it wakes waiting lines by the limits as deployed
        SUNDIAL_TASK_LIMITS: JSON.stringify(inspection.limits),
      },
      reservedConcurrentExecutions: settings.tickReservedConcurrency ?? undefined,
      // A failed tick is not retried: the next one, a tick period later, does the same work.
      asyncRetryAttempts: 0,
      asyncMaxEventAge: Duration.minutes(2 * DISPATCH.tickPeriodMinutes),
    });
    const dispatcher = this.createDispatcher(environment, common);
    tick.function.addEnvironment('SUNDIAL_DISPATCHERS', String(settings.dispatchers));
    tick.function.addEnvironment('SUNDIAL_DISPATCHER_FUNCTION', dispatcher.function.functionName);
    grantInvokeDispatcher(tick.role, dispatcher.function);
    grantTableAccess(dispatcher, dispatcher.role, this.table, TABLE_ACCESS.dispatcher);
    grantSend(dispatcher.role, this.queue, this.criticalQueue);
    grantPublish(dispatcher.role, this.eventBus);
    this.dispatcherFunction = dispatcher.function;
    const worker = new SundialFunction(this, 'Worker', {
      ...common,
      entry: writeEntry('worker', discovery.tasks, PROJECT_ROOT),
      description: 'Sundial worker: claims and runs jobs from the jobs queue',
      timeout: Duration.seconds(settings.workerTimeoutSeconds),
      memorySize: settings.workerMemorySize,
      // Only the worker moves unreadable messages straight to the DLQ.
      environment: {
        ...environment,
        SUNDIAL_DEAD_LETTER_QUEUE_URL: this.deadLetterQueue.queueUrl,
        ...failureDestinationsEnvironment(
          this,
          failureDestinations,
          discovery.tasks.map((task) => task.id),
        ),
      },
    });
    const admin = new SundialFunction(this, 'Admin', {
      ...common,
      entry: writeEntry('admin', discovery.tasks, PROJECT_ROOT),
      description: 'Sundial admin API: schedules, jobs and results (invoke with IAM)',
      timeout: Duration.seconds(ADMIN_TIMEOUT_SECONDS),
      memorySize: 512,
      environment,
    });
    const schedules = new SundialFunction(this, 'Schedules', {
      ...common,
      entry: writeEntry('schedules', discovery.tasks, PROJECT_ROOT),
      description: 'Sundial schedules declared in code: reconciled at each deploy (custom resource)',
      timeout: Duration.seconds(SCHEDULES_TIMEOUT_SECONDS),
      memorySize: 512,
      environment,
    });
    this.tickFunction = tick.function;
    this.workerFunction = worker.function;
    this.adminFunction = admin.function;
    this.schedulesFunction = schedules.function;

    grantTableAccess(tick, tick.role, this.table, TABLE_ACCESS.tick);
    grantTableAccess(worker, worker.role, this.table, TABLE_ACCESS.worker);
    grantTableAccess(admin, admin.role, this.table, TABLE_ACCESS.admin);
    grantTableAccess(schedules, schedules.role, this.table, TABLE_ACCESS.schedules);
    grantSend(tick.role, this.queue, this.criticalQueue);
    grantSend(admin.role, this.queue, this.criticalQueue);
    // A new schedule's first fires inside the lookahead window are sent by the reconcile itself.
    grantSend(schedules.role, this.queue, this.criticalQueue);
    grantWorkerQueue(worker.role, [this.queue, this.criticalQueue], this.deadLetterQueue);
    // Job events from the worker, schedule events from the admin API and the tick (`schedule.finished`).
    for (const role of [tick.role, worker.role, admin.role, schedules.role])
      grantPublish(role, this.eventBus);
    grantFailureDestinations(worker.role, failureDestinations);

    // Two event sources of the one worker: each mapping's maximum concurrency is its own, so critical
    // jobs keep their share while the jobs queue's backlog holds all of its own (ADR 0003 §6).
    for (const [queue, maxConcurrency] of [
      [this.queue, settings.workerMaxConcurrency],
      [this.criticalQueue, settings.criticalWorkerMaxConcurrency],
    ] as const) {
      worker.function.addEventSource(
        new sources.SqsEventSource(queue, {
          batchSize: settings.workerBatchSize,
          maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }
    this.tickRule = new events.Rule(this, 'TickRule', {
      description: 'Sundial tick',
      schedule: events.Schedule.rate(Duration.minutes(DISPATCH.tickPeriodMinutes)),
      targets: [
        new targets.LambdaFunction(tick.function, {
          deadLetterQueue: this.tickDeadLetterQueue,
          retryAttempts: 2,
          maxEventAge: Duration.minutes(1),
        }),
      ],
    });

    const metrics = new SundialMetrics(EMF.defaultNamespace);
    this.alarms = new SundialAlarms(this, 'Alarms', {
      metrics,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      criticalDeadLetterQueue: this.criticalDeadLetterQueue,
      tickDeadLetterQueue: this.tickDeadLetterQueue,
      tickFunction: tick.function,
      workerFunction: worker.function,
      dispatcherFunction: dispatcher.function,
      fireLagP99ThresholdMs: settings.fireLagP99ThresholdMs,
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
    }).alarms;
    this.dashboard = createDashboard(this, {
      metrics,
      queue: this.queue,
      criticalQueue: this.criticalQueue,
      deadLetterQueue: this.deadLetterQueue,
      functions: {
        tick: tick.function,
        worker: worker.function,
        admin: admin.function,
        ...(dispatcher && { dispatcher: dispatcher.function }),
      },
      alarms: this.alarms,
    });

    // After the function's role and policies: CloudFormation reconciles once it may do what it needs.
    this.codeSchedules = codeSchedulesResource(this, {
      handler: schedules.function,
      schedules: declared.schedules,
      maxRemovalPercent: settings.maxScheduleRemovalPercent,
      keepOnDelete: settings.keepSchedulesOnDelete,
    });
    this.codeSchedules.node.addDependency(schedules);

    acknowledgeFindings({
      functions: [tick, worker, admin, schedules, ...(dispatcher ? [dispatcher] : [])],
      tickDeadLetterQueue: this.tickDeadLetterQueue,
      tracing: settings.tracing,
    });
  }

  /**
   * The dispatcher Lambda (ADR 0006), invoked asynchronously by the tick: the tick's budget and timeout,
   * no retries (a later tick takes the shards of a failed dispatcher once their leases end) and events
   * dropped after a minute (by then the shard leases have run out).
   */
  private createDispatcher(
    environment: Record<string, string>,
    common: Pick<SundialFunctionProps, 'projectRoot' | 'tracing' | 'logRetention' | 'removalPolicy'>,
  ): SundialFunction {
    return new SundialFunction(this, 'Dispatcher', {
      ...common,
      entry: join(PROJECT_ROOT, RUNTIME_MODULES.dispatcher.file),
      description:
        'Sundial dispatcher: sends the fire times of the due schedules of the shards a tick hands it',
      timeout: Duration.seconds(TICK_TIMEOUT_SECONDS),
      memorySize: 512,
      environment,
      asyncRetryAttempts: 0,
      asyncMaxEventAge: Duration.minutes(1),
    });
  }

  /** The runtime configuration shared by the three Lambdas (lib/runtime/config.ts reads it). */
  private environment(settings: SundialSettings): Record<string, string> {
    return {
      SUNDIAL_TABLE_NAME: this.table.tableName,
      SUNDIAL_QUEUE_URL: this.queue.queueUrl,
      SUNDIAL_CRITICAL_QUEUE_URL: this.criticalQueue.queueUrl,
      // Its ARN: EventBridge takes one wherever it takes a name, and it reaches a bus of another account
      SUNDIAL_EVENT_BUS_NAME: this.eventBus.eventBusArn,
      SUNDIAL_SHARDS: String(settings.shards),
      SUNDIAL_LOG_LEVEL: settings.logLevel,
      SUNDIAL_METRICS_NAMESPACE: EMF.defaultNamespace,
      ...(settings.defaultResultTtlSeconds === null
        ? {}
        : { SUNDIAL_DEFAULT_RESULT_TTL_SECONDS: String(settings.defaultResultTtlSeconds) }),
    };
  }
}
