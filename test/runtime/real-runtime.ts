import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll } from 'vitest';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { SqsJobQueue } from '../../lib/adapters/sqs/sqs-job-queue';
import { sleep, systemClock } from '../../lib/core/clock';
import type { RuntimeConfig } from '../../lib/runtime/config';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import { createWorkerHandler } from '../../lib/runtime/handlers/worker';
import { silentLogger } from '../../lib/runtime/observability/logger';
import { defineTask, type TaskOptions } from '../../lib/runtime/tasks/define-task';
import { staticTaskRegistry, type TaskRegistry } from '../../lib/runtime/tasks/registry';
import { createTestTable, type TestTable } from '../support/dynamodb';
import { createTestQueue, type LocalSqs, startLocalSqs, type TestQueue } from '../support/sqs';
import { RecordingPublisher, testConfig } from './support';

// biome-ignore lint/suspicious/noExplicitAny: test tasks take whatever payload their test sends.
export type AnyTaskOptions = TaskOptions<any, any>;

export interface RealRuntime {
  deps: RuntimeDeps;
  store: DynamoDbStore;
  queue: TestQueue;
}

/**
 * Starts the SQS emulator before the file's tests and drops their tables and stops it after them.
 * `runtime()` gives each test a table and a queue of its own, so no test sees another's schedules.
 */
export function useLocalServices() {
  let sqs: LocalSqs | undefined;
  const tables: TestTable[] = [];
  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await Promise.all([...tables.map((table) => table.drop()), sqs?.stop()]);
  });
  const started = () => {
    if (!sqs) throw new Error('the SQS emulator is not running (use it inside a test)');
    return sqs;
  };
  return {
    sqs: started,
    runtime: (config: Partial<RuntimeConfig> = {}) => createRealRuntime(started(), tables, config),
  };
}

/** Runtime dependencies on a table and a queue of their own; the table is added to `tables` to drop. */
async function createRealRuntime(
  sqs: LocalSqs,
  tables: TestTable[],
  config: Partial<RuntimeConfig> = {},
): Promise<RealRuntime> {
  const [table, queue] = await Promise.all([
    createTestTable('runtime'),
    createTestQueue(sqs.client, { visibilityTimeoutSeconds: 5 }),
  ]);
  tables.push(table);
  const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
  const deps: RuntimeDeps = {
    config: testConfig({ tableName: table.tableName, queueUrl: queue.queueUrl, ...config }),
    scheduleStore: store,
    jobStore: store,
    queue: new SqsJobQueue({ client: sqs.client, queueUrl: queue.queueUrl }),
    events: new RecordingPublisher(),
    clock: systemClock,
    sleep,
    random: Math.random,
    newId: randomUUID,
    logger: silentLogger,
    metricsSink: () => {},
  };
  return { deps, store, queue };
}

export function taskRegistry(tasks: Record<string, AnyTaskOptions>): TaskRegistry {
  return staticTaskRegistry(
    Object.fromEntries(Object.entries(tasks).map(([id, options]) => [id, { default: defineTask(options) }])),
  );
}

export function worker(deps: RuntimeDeps, tasks: Record<string, AnyTaskOptions>) {
  return createWorkerHandler(() => deps, taskRegistry(tasks));
}

/**
 * Two workers poll the queue (no tick: only wake-ups move waiting lines) until `done()` or `timeoutMs`;
 * then returns whatever messages the queue still holds.
 */
export async function pollWithTwoWorkers(
  sqs: LocalSqs,
  runtime: RealRuntime,
  tasks: Record<string, AnyTaskOptions>,
  done: () => boolean,
  timeoutMs: number,
) {
  const handler = worker(runtime.deps, tasks);
  const until = Date.now() + timeoutMs;
  const poll = async () => {
    while (!done() && Date.now() < until) {
      await pollOnce({ client: sqs.client, queueUrl: runtime.queue.queueUrl, waitTimeSeconds: 1 }, handler);
    }
  };
  await Promise.all([poll(), poll()]);
  const left = await sqs.client.send(
    new ReceiveMessageCommand({
      QueueUrl: runtime.queue.queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
    }),
  );
  return left.Messages ?? [];
}

/**
 * Runs the platform in the background as `npm start` does: a tick every `tickEveryMs` and two workers
 * polling the queue, until `stop()`.
 */
export function runInBackground(
  sqs: LocalSqs,
  runtime: RealRuntime,
  tasks: Record<string, AnyTaskOptions>,
  tickEveryMs = 500,
): { stop(): Promise<void> } {
  let running = true;
  const handler = worker(runtime.deps, tasks);
  const tick = createTickHandler(() => runtime.deps);
  const poll = async () => {
    while (running) {
      await pollOnce({ client: sqs.client, queueUrl: runtime.queue.queueUrl, waitTimeSeconds: 1 }, handler);
    }
  };
  const ticks = async () => {
    while (running) {
      await tick();
      await new Promise((resolve) => setTimeout(resolve, tickEveryMs));
    }
  };
  const loops = [poll(), poll(), ticks()];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
