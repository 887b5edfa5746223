import type { Context, SQSRecord } from 'aws-lambda';
import { MemoryStore } from '../../lib/adapters/memory/memory-store';
import { ManualClock, type Sleep } from '../../lib/core/clock';
import type { JsonValue } from '../../lib/core/json';
import { encodeJobMessage, type JobMessageBody } from '../../lib/core/model/job-message';
import type { ScheduleDefinition } from '../../lib/core/model/schedule';
import { DEFAULT_NOTE_GRID, scheduleGrid } from '../../lib/core/planning/note-chunks';
import type { EventPublisher, SundialEvent } from '../../lib/core/ports/event-publisher';
import type { JobMessage, JobQueue, ReceivedMessage } from '../../lib/core/ports/job-queue';
import type { JobRequest } from '../../lib/core/ports/job-store';
import type { TriggerSpec } from '../../lib/core/triggers';
import { type RuntimeConfig, readConfig } from '../../lib/runtime/config';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { createLogger } from '../../lib/runtime/observability/logger';

export const T0 = Date.parse('2026-03-02T10:00:00Z');
export const SECOND = 1_000;

/**
 * The first `count` ids `<prefix>-<n>` whose note chunks start `phaseMs` after the grid's boundaries
 * (`scheduleGrid`): a test that counts fires by chunk, or reads several schedules' notes in one bucket,
 * names the phase it assumes.
 */
export function idsAtPhase(prefix: string, count: number, phaseMs = 0): string[] {
  const ids: string[] = [];
  for (let n = 0; ids.length < count; n++) {
    const id = `${prefix}-${n}`;
    if (scheduleGrid(DEFAULT_NOTE_GRID, id).phaseMs === phaseMs) ids.push(id);
  }
  return ids;
}

/** The first id of `idsAtPhase`. */
export function idAtPhase(prefix: string, phaseMs = 0): string {
  return idsAtPhase(prefix, 1, phaseMs)[0] as string;
}

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

/** The deployed configuration (ADR 0008: one configuration), with the test's `overrides`. */
export function testConfig(overrides: Partial<RuntimeConfig> = {}): RuntimeConfig {
  return {
    ...readConfig({ SUNDIAL_TABLE_NAME: 'test', SUNDIAL_QUEUE_URL: 'http://127.0.0.1/queue' }),
    ...overrides,
  };
}

/** Sleepers on a manual clock: each waits until it is woken at its time, or its signal aborts it. */
class ClockSleepers {
  private readonly sleepers: { until: number; wake: () => void }[] = [];

  constructor(
    private readonly clock: ManualClock,
    private readonly onSleep: () => void = () => {},
  ) {}

  get size(): number {
    return this.sleepers.length;
  }

  readonly sleep: Sleep = (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sleeper = { until: this.clock.now() + Math.max(0, ms), wake: resolve };
      this.sleepers.push(sleeper);
      // An aborted sleep ends at once and no longer moves the clock.
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.sleepers.indexOf(sleeper);
          if (index >= 0) this.sleepers.splice(index, 1);
          resolve();
        },
        { once: true },
      );
      this.onSleep();
    });

  /** Wakes the earliest sleeper due by `until`, the clock set to its time; false when none is. */
  wakeNext(until = Number.POSITIVE_INFINITY): boolean {
    this.sleepers.sort((a, b) => a.until - b.until);
    const next = this.sleepers[0];
    if (!next || next.until > until) return false;
    this.sleepers.shift();
    if (this.clock.now() < next.until) this.clock.set(next.until);
    next.wake();
    return true;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A sleep that moves `clock` instead of waiting: what the tick and its dispatchers wait for their send
 * phases with in tests, so phases run as deployed. Sleepers wake one at a time, earliest first, each once
 * the work that is not asleep has nothing left to do (a `setImmediate` turn), the clock set to its wake
 * time: concurrent dispatchers' waits overlap as they would in real time instead of adding up.
 */
export function clockSleep(clock: ManualClock): Sleep {
  let waking = false;
  const wake = () => {
    sleepers.wakeNext();
    waking = sleepers.size > 0;
    if (waking) setImmediate(wake);
  };
  const sleepers = new ClockSleepers(clock, () => {
    if (waking) return;
    waking = true;
    setImmediate(wake);
  });
  return sleepers.sleep;
}

/**
 * Sleeps that wake only when the test moves time with `advance(ms)`: due sleepers wake earliest first,
 * `clock` set to each one's wake time, with what they set off run before the next (a `setImmediate`
 * turn). For tests that look at what happens between two instants (a handler past its deadline).
 */
export function manualSleep(clock: ManualClock): { sleep: Sleep; advance: (ms: number) => Promise<void> } {
  const sleepers = new ClockSleepers(clock);
  const advance = async (ms: number) => {
    const until = clock.now() + ms;
    await turn();
    while (sleepers.wakeNext(until)) await turn();
    if (clock.now() < until) clock.set(until);
    await turn();
  };
  return { sleep: sleepers.sleep, advance };
}

/**
 * Delivers, in run-time order, every message of `queue` due by `until` (and those they send), each
 * through `deliver`; later ones stay queued.
 */
export async function deliverDueMessages(
  queue: RecordingQueue,
  until: number,
  deliver: (message: JobMessage) => Promise<unknown>,
): Promise<void> {
  for (;;) {
    const queued = queue.drain();
    const due = queued.filter((message) => message.job.runAt <= until);
    queue.sent.push(...queued.filter((message) => message.job.runAt > until));
    if (due.length === 0) return;
    for (const message of due.sort((a, b) => a.job.runAt - b.job.runAt)) await deliver(message);
  }
}

/**
 * A seeded uniform random in [0, 1) (mulberry32): the same sequence on every run, a different value on
 * every call (`testRuntime`'s `random` is a constant 0.5: jitter and backoff at their middle).
 */
export function seededRandom(seed = 1): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Ids `id-1`, `id-2`, …: unique, and the same on every run. */
export function sequentialIds(prefix = 'id'): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}-${next}`;
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
  /** `deps.sleep`: waits by moving `clock` (`clockSleep`), so send phases and rests run as deployed. */
  sleep: (ms: number) => Promise<void>;
}

/**
 * Runtime dependencies on the in-memory store, a recording queue and publisher, and a manual clock at T0,
 * with the deployed configuration (`testConfig`).
 */
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
    sleep: clockSleep(clock),
    random: () => 0.5,
    newId: sequentialIds(),
    logger: createLogger({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line)) }),
    metricsSink: (line) => metricLines.push(JSON.parse(line)),
  };
  return { deps, store, queue, publisher, clock, logLines, metricLines, sleep: deps.sleep };
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
export function sqsRecord(message: JobMessageBody | string, receiveCount = 1): SQSRecord {
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
