import type { Context, SQSRecord } from 'aws-lambda';
import { MemoryStore } from '../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../lib/core/clock';
import type { JsonValue } from '../../lib/core/json';
import { encodeJobMessage } from '../../lib/core/model/job-message';
import type { ScheduleDefinition } from '../../lib/core/model/schedule';
import type { EventPublisher, SundialEvent } from '../../lib/core/ports/event-publisher';
import type { JobMessage, JobQueue, ReceivedMessage } from '../../lib/core/ports/job-queue';
import type { JobRequest } from '../../lib/core/ports/job-store';
import type { TriggerSpec } from '../../lib/core/triggers';
import { type RuntimeConfig, readConfig } from '../../lib/runtime/config';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { createLogger } from '../../lib/runtime/observability/logger';

export const T0 = Date.parse('2026-03-02T10:00:00Z');
export const SECOND = 1_000;

/** A queue that records what is sent; `failWhen` makes chosen messages fail to send. */
export class RecordingQueue implements JobQueue {
  readonly sent: JobMessage[] = [];
  readonly visibilityChanges: { receiptHandle: string; seconds: number }[] = [];
  failWhen: (message: JobMessage) => boolean = () => false;
  /** Runs after a successful send (e.g. to simulate a crash by throwing). */
  afterSend: () => void = () => {};

  async send(messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    const failed = messages.filter((message) => this.failWhen(message));
    this.sent.push(...messages.filter((message) => !failed.includes(message)));
    this.afterSend();
    return { failed: failed.map((message) => message.job.id) };
  }

  async changeVisibility(message: ReceivedMessage, seconds: number): Promise<void> {
    this.visibilityChanges.push({ receiptHandle: message.receiptHandle, seconds });
  }

  /** Takes every recorded message out (as a consumer would). */
  drain(): JobMessage[] {
    return this.sent.splice(0);
  }
}

export class RecordingPublisher implements EventPublisher {
  readonly events: SundialEvent[] = [];
  calls = 0;
  failing = false;

  async publish(events: readonly SundialEvent[]): Promise<void> {
    this.calls += 1;
    if (this.failing) throw new Error('event bus unavailable');
    this.events.push(...events);
  }
}

export function testConfig(overrides: Partial<RuntimeConfig> = {}): RuntimeConfig {
  return {
    ...readConfig({ SUNDIAL_TABLE_NAME: 'test', SUNDIAL_QUEUE_URL: 'http://127.0.0.1/queue' }),
    // The manual clock does not move while the tick would wait for a send phase: the tick sends at once
    // here (test/runtime/tick/send-phases.test.ts turns phases on with a sleep that moves the clock).
    sendPhaseToleranceMs: 0,
    ...overrides,
  };
}

export interface TestRuntime {
  deps: RuntimeDeps;
  store: MemoryStore;
  queue: RecordingQueue;
  publisher: RecordingPublisher;
  clock: ManualClock;
  logLines: Record<string, unknown>[];
  metricLines: Record<string, unknown>[];
}

/** Runtime dependencies on the in-memory store, a recording queue and publisher, and a manual clock at T0. */
export function testRuntime(config: Partial<RuntimeConfig> = {}): TestRuntime {
  const store = new MemoryStore();
  const queue = new RecordingQueue();
  const publisher = new RecordingPublisher();
  const clock = new ManualClock(T0);
  const logLines: Record<string, unknown>[] = [];
  const metricLines: Record<string, unknown>[] = [];
  const deps: RuntimeDeps = {
    config: testConfig(config),
    scheduleStore: store,
    jobStore: store,
    queue,
    events: publisher,
    clock,
    random: () => 0.5,
    logger: createLogger({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line)) }),
    metricsSink: (line) => metricLines.push(JSON.parse(line)),
  };
  return { deps, store, queue, publisher, clock, logLines, metricLines };
}

export function scheduleDefinition(
  id: string,
  overrides: Partial<ScheduleDefinition> = {},
): ScheduleDefinition {
  return {
    id,
    task: 'echo',
    trigger: { type: 'interval', seconds: 30, start_at: new Date(T0).toISOString() } as TriggerSpec,
    payload: { n: 1 },
    coalesce: 'latest',
    misfireGraceSeconds: null,
    maxJitterSeconds: 0,
    tags: [],
    paused: false,
    keepFinished: false,
    maxRuns: null,
    ...overrides,
  };
}

export function jobRequest(id: string, overrides: Partial<JobRequest> = {}): JobRequest {
  return {
    id,
    task: 'echo',
    payload: { n: 1 } as JsonValue,
    origin: 'direct',
    scheduleId: null,
    fireTime: null,
    runAt: T0,
    startDeadline: null,
    ...overrides,
  };
}

let messageCounter = 0;

/** An SQS record as Lambda delivers it, for a job message (or a raw body). */
export function sqsRecord(
  message: Pick<JobMessage, 'job' | 'attempt'> | string,
  receiveCount = 1,
): SQSRecord {
  messageCounter += 1;
  return {
    messageId: `message-${messageCounter}`,
    receiptHandle: `receipt-${messageCounter}`,
    body: typeof message === 'string' ? message : encodeJobMessage(message),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(T0),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(T0),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:jobs',
    awsRegion: 'us-east-1',
  };
}

/** The context Lambda passes to an invocation of `functionName`. */
export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/03/02/[$LATEST]${requestId}`,
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
