import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { storeClient } from '../adapters/dynamodb/client';
import { withoutSdkLogging } from '../adapters/sdk-logging';
import { queueClient } from '../adapters/sqs/client';
import { LOCAL_ADMIN_FUNCTION, LOCAL_ADMIN_PORT } from '../core/admin-contract/endpoint';
import { LIMITS } from '../core/limits';
import { readConfig } from '../runtime/config';
import { buildRuntimeDependencies, type RuntimeDeps } from '../runtime/dependencies';
import { type AdminHandler, createAdminHandler } from '../runtime/handlers/admin';
import { createTickHandler, type TickHandler } from '../runtime/handlers/tick';
import { createWorkerHandler, type WorkerHandler } from '../runtime/handlers/worker';
import { createLogger } from '../runtime/observability/logger';
import { taskLimitsOf } from '../runtime/task-limits';
import { loadTaskRegistryFromDirectory } from '../runtime/tasks/load-directory';
import type { TaskRegistry } from '../runtime/tasks/registry';
import { lockDataDir } from './data-dir-lock';
import { describeEvent } from './describe-event';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal } from './dynamodb-local';
import { type ExtraRoute, startLambdaEndpoint } from './lambda-endpoint';
import {
  createQueueWithDeadLetterQueue,
  ensureLocalTable,
  LOCAL_CRITICAL_QUEUE_NAME,
  LOCAL_QUEUE_NAME,
  LOCAL_TABLE_NAME,
} from './local-resources';
import { prettyLogSink } from './pretty-log';
import { startPutEventsServer } from './put-events-server';
import { restoreQueueSnapshot, saveQueueSnapshot } from './queue-snapshot';
import { startSqsEmulator } from './sqs-emulator';
import { watchTasks } from './task-watcher';
import { startTickLoop } from './tick-loop';
import { startWorkerPollers } from './worker-pollers';

export const TICK_FUNCTION_NAME = 'sundial-tick';
/** The admin API's port unless `--port` or `SUNDIAL_PORT` says otherwise (the contract's). */
export const DEFAULT_LOCAL_PORT = LOCAL_ADMIN_PORT;
const LOCAL_EVENT_BUS = 'sundial-local';
const WORKER_TIMEOUT_MS = LIMITS.maxLambdaTimeoutSeconds * 1000;

export interface LocalPlatformOptions {
  /** Port of the local Lambda endpoint (and dashboard) on 127.0.0.1; 0 picks a free one. @default 4750 */
  port?: number;
  /** Keep schedules, jobs and waiting messages here between runs; in memory when absent. */
  dataDir?: string;
  /** @default <cwd>/functions */
  functionsDir?: string;
  /** @default 1000 */
  tickIntervalMs?: number;
  /** Worker pollers running at once. @default 4 */
  workerConcurrency?: number;
  /** Worker pollers of the queue for critical jobs, besides those (its own share, as in AWS). @default 2 */
  criticalWorkerConcurrency?: number;
  /** Where the platform's log lines go. @default stdout */
  log?: (line: string) => void;
  /** `SUNDIAL_*` settings (lookahead, lease times, log level…), as in Lambda. @default process.env */
  env?: Record<string, string | undefined>;
  /** More HTTP routes on the same port (the dashboard). */
  routes?: (platform: Pick<LocalPlatform, 'invokeAdmin'>) => readonly ExtraRoute[];
}

export interface LocalPlatform {
  /** `http://127.0.0.1:<port>`: the Lambda Invoke API (`--endpoint-url`) and the dashboard. */
  url: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  eventsEndpoint: string;
  tableName: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** The queue for critical jobs. */
  criticalQueueUrl: string;
  deps: RuntimeDeps;
  tasks(): TaskRegistry;
  invokeAdmin(request: unknown): ReturnType<AdminHandler>;
  tick: TickHandler;
  stop(): Promise<void>;
}

/**
 * Sundial on one machine, with the same handlers as in AWS: DynamoDB Local, the SQS emulator, a
 * local EventBridge PutEvents endpoint, the Lambda Invoke API for the admin function, the tick on a
 * loop and workers polling the queue.
 */
export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const functionsDir = resolve(options.functionsDir ?? 'functions');
  let registry = await loadTaskRegistryFromDirectory(functionsDir);
  const stack: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stack.reverse()) await stop().catch(() => undefined);
  };
  try {
    if (options.dataDir) {
      await mkdir(options.dataDir, { recursive: true });
      stack.push(await lockDataDir(options.dataDir));
    }
    const dynamo = await startDynamoDbLocal(
      options.dataDir ? { dataDir: join(options.dataDir, 'dynamodb') } : {},
    );
    stack.push(dynamo.stop);
    const clientSettings = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamodb = storeClient({ ...clientSettings, endpoint: dynamo.endpoint });
    await ensureLocalTable(dynamodb);

    const emulator = await startSqsEmulator();
    const sqsEndpoint = emulator.endpoint;
    const sqs = queueClient({ ...clientSettings, endpoint: sqsEndpoint });
    const snapshotFile = (name: string) => options.dataDir && join(options.dataDir, `${name}.json`);
    const queueNames = { queue: LOCAL_QUEUE_NAME, 'queue-critical': LOCAL_CRITICAL_QUEUE_NAME };
    stack.push(async () => {
      for (const [file, name] of Object.entries(queueNames)) {
        const snapshot = snapshotFile(file);
        if (snapshot) await saveQueueSnapshot(emulator, name, snapshot);
      }
      await emulator.stop();
    });
    const queueSettings = { visibilityTimeoutSeconds: 120, maxReceiveCount: 500 };
    const queues = await createQueueWithDeadLetterQueue(sqs, { name: LOCAL_QUEUE_NAME, ...queueSettings });
    const critical = await createQueueWithDeadLetterQueue(sqs, {
      name: LOCAL_CRITICAL_QUEUE_NAME,
      ...queueSettings,
    });
    for (const [file, queueUrl] of [
      ['queue', queues.queueUrl],
      ['queue-critical', critical.queueUrl],
    ] as const) {
      const snapshot = snapshotFile(file);
      if (snapshot) await restoreQueueSnapshot(sqs, queueUrl, snapshot);
    }

    const events = await startPutEventsServer({
      onEvents: (entries) => {
        for (const entry of entries) log(describeEvent(entry));
      },
    });
    stack.push(events.stop);

    const env = options.env ?? process.env;
    // The deployed defaults: the tick hands the due shards to dispatchers, here in this process (ADR
    // 0006) as to the dispatcher Lambda in AWS.
    const config = readConfig({
      SUNDIAL_LOG_LEVEL: 'info',
      ...env,
      SUNDIAL_TABLE_NAME: LOCAL_TABLE_NAME,
      SUNDIAL_QUEUE_URL: queues.queueUrl,
      SUNDIAL_CRITICAL_QUEUE_URL: critical.queueUrl,
      SUNDIAL_EVENT_BUS_NAME: LOCAL_EVENT_BUS,
    });
    const built = buildRuntimeDependencies(config, {
      dynamodb,
      sqs,
      eventbridge: withoutSdkLogging(new EventBridgeClient({ ...clientSettings, endpoint: events.endpoint })),
    });
    const deps: RuntimeDeps = {
      ...built,
      // The tick wakes waiting lines by the tasks' limits as loaded, as the stack tells it in AWS
      config: { ...built.config, taskLimits: taskLimitsOf(registry) },
      logger: createLogger({ level: config.logLevel, sink: prettyLogSink(log) }),
      metricsSink: () => {},
    };
    const getDeps = () => deps;
    const tick = createTickHandler(getDeps);
    let worker: WorkerHandler = createWorkerHandler(getDeps, registry);
    let admin: AdminHandler = createAdminHandler(getDeps, registry);
    const invokeAdmin: AdminHandler = (event, context) => admin(event, context);

    const watcher = watchTasks(
      functionsDir,
      (reloaded) => {
        registry = reloaded;
        deps.config = { ...deps.config, taskLimits: taskLimitsOf(registry) };
        worker = createWorkerHandler(getDeps, registry);
        admin = createAdminHandler(getDeps, registry);
        log(`tasks reloaded: ${registry.ids().join(', ') || '(none)'}`);
      },
      (error) => log(`tasks not reloaded (the previous ones stay in use): ${errorText(error)}`),
    );
    stack.push(async () => watcher.close());

    const endpoint = await startLambdaEndpoint({
      port: options.port ?? DEFAULT_LOCAL_PORT,
      functions: new Map([
        [LOCAL_ADMIN_FUNCTION, { handler: invokeAdmin, timeoutMs: 60_000 }],
        [TICK_FUNCTION_NAME, { handler: () => tick(), timeoutMs: 60_000 }],
      ]),
      extraRoutes: options.routes?.({ invokeAdmin }) ?? [],
    });
    stack.push(() => new Promise<void>((done) => endpoint.server.close(() => done())));

    const ticks = startTickLoop(tick, options.tickIntervalMs ?? 1_000, (error) =>
      log(`tick failed: ${errorText(error)}`),
    );
    stack.push(ticks.stop);
    // Two event sources of the one worker, as in AWS: the critical queue's pollers are its own share.
    for (const [queue, concurrency] of [
      [queues, options.workerConcurrency ?? 4],
      [critical, options.criticalWorkerConcurrency ?? 2],
    ] as const) {
      const pollers = startWorkerPollers({
        client: sqs,
        queueUrl: queue.queueUrl,
        queueArn: queue.queueArn,
        worker: () => worker,
        concurrency,
        batchSize: 10,
        timeoutMs: WORKER_TIMEOUT_MS,
        onError: (error) => log(`worker poll failed: ${errorText(error)}`),
      });
      stack.push(pollers.stop);
    }

    return {
      url: endpoint.url,
      dynamodbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      eventsEndpoint: events.endpoint,
      tableName: LOCAL_TABLE_NAME,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      criticalQueueUrl: critical.queueUrl,
      deps,
      tasks: () => registry,
      invokeAdmin,
      tick,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
