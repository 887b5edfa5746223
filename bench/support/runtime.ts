import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { SqsJobQueue } from '../../lib/adapters/sqs/sqs-job-queue';
import { sleep, systemClock } from '../../lib/core/clock';
import { discardingPublisher } from '../../lib/core/ports/event-publisher';
import { readConfig } from '../../lib/runtime/config';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { type AdminHandler, createAdminHandler } from '../../lib/runtime/handlers/admin';
import { createTickHandler, type TickHandler } from '../../lib/runtime/handlers/tick';
import { createWorkerHandler, type WorkerHandler } from '../../lib/runtime/handlers/worker';
import { createLogger, discardLines, silentLogger } from '../../lib/runtime/observability/logger';
import { defineTask, type TaskOptions } from '../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../lib/runtime/tasks/registry';
import { CapacityMeter, DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE } from './capacity-meter';
import type { BenchDynamo } from './dynamo';
import { type Pollers, startPollers } from './pollers';
import type { SeedTarget } from './schedules';
import { type BenchQueue, type BenchSqs, createBenchQueue } from './sqs';

export interface BenchRuntimeOptions {
  /** Extra `SUNDIAL_*` variables (the configuration is read the way the Lambdas read it). */
  env?: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tasks take whatever payload their schedules carry.
  tasks: Record<string, TaskOptions<any, any>>;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /** The DynamoDB client the store uses (default: the run's client). */
  dynamoClient?: DynamoDBClient;
  /** Log warnings and errors to stderr instead of dropping every line. */
  verbose?: boolean;
}

/** The real runtime (DynamoDB store, SQS queue, tick and worker handlers) on a fresh table and queue. */
export interface BenchRuntime {
  deps: RuntimeDeps;
  store: DynamoDbStore;
  meter: CapacityMeter;
  queue: BenchQueue;
  tick: TickHandler;
  worker: WorkerHandler;
  /** Builds another tick handler (with its own state: a second, concurrent tick). */
  newTick(getDeps?: () => RuntimeDeps): TickHandler;
  /** Builds another worker handler over other dependencies (e.g. per-invocation wrappers). */
  newWorker(getDeps: () => RuntimeDeps): WorkerHandler;
  /** The admin API (as the admin Lambda answers it) over these dependencies. */
  newAdmin(getDeps: () => RuntimeDeps): AdminHandler;
  /** Where `seedSchedules` writes this runtime's schedules. */
  seedTarget: SeedTarget;
}

/** `SUNDIAL_*` variables every bench runtime gets (before its own `env`): the run's flags set them. */
export const benchEnvironment: Record<string, string> = {};

export async function benchRuntime(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: BenchRuntimeOptions,
): Promise<BenchRuntime> {
  const [tableName, queue] = await Promise.all([
    dynamo.newTable('bench'),
    createBenchQueue(sqs.client, {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
      maxReceiveCount: options.maxReceiveCount ?? 500,
    }),
  ]);
  const config = readConfig({
    SUNDIAL_TABLE_NAME: tableName,
    SUNDIAL_QUEUE_URL: queue.queueUrl,
    SUNDIAL_DEAD_LETTER_QUEUE_URL: queue.dlqUrl,
    ...benchEnvironment,
    ...options.env,
  });
  const meter = new CapacityMeter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const store = new DynamoDbStore({
    client: meter.attach(options.dynamoClient ?? dynamo.newClient()),
    tableName,
    shards: config.shards,
  });
  const logger = options.verbose
    ? createLogger({ level: 'warn', sink: (line) => process.stderr.write(`${line}\n`) })
    : silentLogger;
  const deps: RuntimeDeps = {
    config,
    scheduleStore: store,
    jobStore: store,
    queue: new SqsJobQueue({ client: sqs.client, queueUrl: queue.queueUrl }),
    events: discardingPublisher,
    clock: systemClock,
    sleep,
    random: Math.random,
    newId: randomUUID,
    logger,
    metricsSink: discardLines,
  };
  const registry = staticTaskRegistry(
    Object.fromEntries(
      Object.entries(options.tasks).map(([id, task]) => [id, { default: defineTask(task) }]),
    ),
  );
  const newTick = (getDeps: () => RuntimeDeps = () => deps) => createTickHandler(getDeps);
  const newWorker = (getDeps: () => RuntimeDeps) => createWorkerHandler(getDeps, registry);
  return {
    deps,
    store,
    meter,
    queue,
    tick: newTick(),
    worker: newWorker(() => deps),
    newTick,
    newWorker,
    newAdmin: (getDeps) => createAdminHandler(getDeps, registry),
    seedTarget: { store, documents: dynamo.documents, tableName, shards: config.shards },
  };
}

/** `count` pollers running the runtime's worker on its queue (Lambda's event source mapping). */
export function startRuntimePollers(sqs: BenchSqs, runtime: BenchRuntime, count: number): Pollers {
  return startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count,
    handler: runtime.worker,
  });
}
