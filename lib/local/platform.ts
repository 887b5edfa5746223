import { mkdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { storeClient } from '../adapters/dynamodb/client';
import { queueClient } from '../adapters/sqs/client';
import { LOCAL_ADMIN_FUNCTION, LOCAL_ADMIN_PORT } from '../core/admin-contract/endpoint';
import { sleep } from '../core/clock';
import { defaultCriticalConcurrency, defaultWorkerTimeoutSeconds } from '../core/limits';
import { loadTasks } from '../runtime/code-schedules/load-tasks';
import type { RuntimeDeps } from '../runtime/dependencies';
import { type AdminHandler, adminDependencies, createAdminHandler } from '../runtime/handlers/admin';
import { createTickHandler, type TickHandler } from '../runtime/handlers/tick';
import { taskLimitsOf } from '../runtime/task-limits';
import type { TaskRegistry } from '../runtime/tasks/registry';
import { TASK_TYPES_FILE, writeTaskTypes } from '../runtime/tasks/type-map';
import { localReconciler } from './code-schedules';
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
import { type LocalRuntimeSettings, localRuntimeDeps, localRuntimeEnv } from './local-runtime';
import { startPutEventsServer } from './put-events-server';
import { restoreQueueSnapshot, saveQueueSnapshot } from './queue-snapshot';
import { SandboxPool } from './sandbox-pool';
import { startSqsEmulator } from './sqs-emulator';
import { watchTasks } from './task-watcher';
import { startTickLoop } from './tick-loop';
import { startWorkerPollers } from './worker-pollers';
import { startWorkerSandbox } from './worker-sandbox';

/** The most pollers the local queue for critical jobs gets by default (the emulator's sockets are few). */
export const LOCAL_CRITICAL_POLLERS_CEILING = 16;
export const TICK_FUNCTION_NAME = 'sundial-tick';
/** The admin API's port unless `--port` or `SUNDIAL_PORT` says otherwise (the contract's). */
export const DEFAULT_LOCAL_PORT = LOCAL_ADMIN_PORT;
/**
 * How long a stop waits for the tick and the running invocations to end by themselves before it stops
 * the worker sandboxes (their messages then come back, from the queue snapshot with `--data-dir`).
 */
const STOP_GRACE_MS = 2_000;

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
  /**
   * Worker pollers of the queue for critical jobs, besides those (its own share, as in AWS).
   * @default 2 plus the sum of the tasks' `maxRunningJobs`, at most 16
   */
  criticalWorkerConcurrency?: number;
  /**
   * The worker Lambda's timeout, as the construct's `workerTimeoutSeconds`: each worker invocation ends
   * then, and a handler that ignored its signal is stopped with its sandbox.
   * @default the construct's: the longest task timeout plus 30 s, at least 90 s
   */
  workerTimeoutSeconds?: number;
  /** Where the platform's log lines go. @default stdout */
  log?: (line: string) => void;
  /** `SUNDIAL_*` settings (lookahead, lease times, log level…), as in Lambda. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * Keep `tasks.d.ts` (the typed client's task map) current in the functions folder, at start and on
   * every reload. @default false (`npm start` turns it on)
   */
  writeTaskTypes?: boolean;
  /** More HTTP routes on the same port (the dashboard). */
  routes?: (platform: Pick<LocalPlatform, 'invokeAdmin'>) => readonly ExtraRoute[];
  /**
   * How far ahead of the system clock the runtime's clock runs, in the tick, admin and worker functions
   * alike (tests run the docs' examples at a fixed date with one). @default 0
   */
  clockOffsetMs?: number;
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
 * loop and workers polling the queue, each invocation in a worker sandbox (a thread) as in Lambda.
 */
export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const functionsDir = resolve(options.functionsDir ?? 'functions');
  let { registry, schedules } = await loadTasks(functionsDir);
  const stack: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stack.splice(0).reverse()) {
      await stop().catch((error: unknown) =>
        log(`a part of the platform did not stop cleanly: ${errorText(error)}`),
      );
    }
  };
  try {
    if (options.dataDir) {
      await mkdir(options.dataDir, { recursive: true });
      stack.push(await lockDataDir(options.dataDir));
    }
    const dynamo = await startDynamoDbLocal({
      ignoreCtrlC: true,
      ...(options.dataDir && { dataDir: join(options.dataDir, 'dynamodb') }),
    });
    stack.push(dynamo.stop);
    const clientSettings = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    await ensureLocalTable(storeClient({ ...clientSettings, endpoint: dynamo.endpoint }));

    const emulator = await startSqsEmulator();
    const sqsEndpoint = emulator.endpoint;
    const sqs = queueClient({ ...clientSettings, endpoint: sqsEndpoint });
    const snapshotFile = (name: string) => options.dataDir && join(options.dataDir, `${name}.json`);
    const queueNames = { queue: LOCAL_QUEUE_NAME, 'queue-critical': LOCAL_CRITICAL_QUEUE_NAME };
    // The inspection's code loads now, not at the stop: a terminal's Ctrl-C also ends the TypeScript
    // loader's compiler process, so a module first loaded while stopping could not be compiled.
    if (options.dataDir) await emulator.inspectQueue(LOCAL_QUEUE_NAME);
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

    const settings: LocalRuntimeSettings = {
      env: localRuntimeEnv(options.env ?? process.env, {
        queueUrl: queues.queueUrl,
        criticalQueueUrl: critical.queueUrl,
      }),
      dynamodbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      eventsEndpoint: events.endpoint,
      ...(options.clockOffsetMs !== undefined && { clockOffsetMs: options.clockOffsetMs }),
    };
    const deps = localRuntimeDeps(settings, registry, log);
    const getDeps = () => deps;
    const tick = createTickHandler(getDeps);
    let admin: AdminHandler = createAdminHandler(getDeps, registry);
    const invokeAdmin: AdminHandler = (event, context) => admin(event, context);
    const sandboxes = new SandboxPool(() => startWorkerSandbox({ functionsDir, settings }, log));
    stack.push(() => sandboxes.stop());
    const workerTimeoutMs = () =>
      (options.workerTimeoutSeconds ?? defaultWorkerTimeoutSeconds(longestTimeoutSeconds(registry))) * 1000;
    const reconcile = localReconciler(() => adminDependencies(deps, registry), log);
    await reconcile(schedules);
    const typeTasks = async () => {
      if (options.writeTaskTypes && (await writeTaskTypes(functionsDir, registry))) {
        log(
          `wrote ${join(relative(process.cwd(), functionsDir), TASK_TYPES_FILE)}: the typed client's task map`,
        );
      }
    };
    await typeTasks();

    const watcher = watchTasks(
      functionsDir,
      (reloaded) => {
        registry = reloaded.registry;
        deps.config = { ...deps.config, taskLimits: taskLimitsOf(registry) };
        admin = createAdminHandler(getDeps, registry);
        // New worker sandboxes load the tasks again, as a deployment's do
        sandboxes.renew();
        log(`tasks reloaded: ${registry.ids().join(', ') || '(none)'}`);
        void reconcile(reloaded.schedules);
        typeTasks().catch((error: unknown) => log(`could not write the task map: ${errorText(error)}`));
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
    stack.push(async () => {
      const closed = new Promise<void>((done) => endpoint.server.close(() => done()));
      // A waiting `get_job_result` or a browser's open connection must not hold the stop.
      endpoint.server.closeAllConnections();
      await closed;
    });

    await sandboxes.warmUp();
    const ticks = startTickLoop(tick, options.tickIntervalMs ?? 1_000, (error) =>
      log(`tick failed: ${errorText(error)}`),
    );
    // Two event sources of the one worker, as in AWS: the critical queue's pollers are its own share.
    const pollers = (
      [
        [queues, options.workerConcurrency ?? 4],
        [
          critical,
          options.criticalWorkerConcurrency ??
            defaultCriticalConcurrency(
              [...taskLimitsOf(registry).values()].map((limits) => limits.maxRunningJobs ?? 0),
              LOCAL_CRITICAL_POLLERS_CEILING,
            ),
        ],
      ] as const
    ).map(([queue, concurrency]) =>
      startWorkerPollers({
        client: sqs,
        queueUrl: queue.queueUrl,
        queueArn: queue.queueArn,
        sandboxes,
        concurrency,
        batchSize: 10,
        timeoutMs: workerTimeoutMs,
        onError: (error) => log(`worker poll failed: ${errorText(error)}`),
      }),
    );
    stack.push(async () => {
      // Whatever the handlers do: after the grace, their sandboxes are stopped, as Lambda would.
      const settled = Promise.all([ticks.stop(), ...pollers.map((poller) => poller.stop())]);
      await Promise.race([settled, sleep(STOP_GRACE_MS)]);
      await sandboxes.stop();
      await Promise.race([settled, sleep(STOP_GRACE_MS)]);
    });

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

/** The longest `timeoutSeconds` of the tasks (0 without tasks). */
function longestTimeoutSeconds(registry: TaskRegistry): number {
  return Math.max(0, ...registry.all().map((task) => task.definition.timeoutSeconds));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
