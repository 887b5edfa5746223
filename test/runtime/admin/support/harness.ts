import { z } from 'zod';
import { MemoryStore } from '../../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../../lib/core/clock';
import type { JobMessage, JobQueue } from '../../../../lib/core/ports/job-queue';
import {
  type AdminApi,
  type AdminDeps,
  type AdminResponse,
  createAdminApi,
} from '../../../../lib/runtime/admin';
import { defineTask, type TaskOptions } from '../../../../lib/runtime/tasks/define-task';
import { staticTaskRegistry, type TaskRegistry } from '../../../../lib/runtime/tasks/registry';
import { RecordingPublisher, seededRandom } from '../../support';

export const T0 = Date.parse('2026-03-02T09:00:00Z');
export const SECOND = 1_000;
export const MINUTE = 60_000;

/** The store's methods that change something: none of them may run when a request is rejected. */
const WRITE_METHODS = new Set([
  'addSchedule',
  'updateSchedule',
  'pauseSchedule',
  'resumeSchedule',
  'removeSchedule',
  'finishSchedule',
  'startCappedRun',
  'removeFinishedSchedule',
  'writeDueNotes',
  'removeDueNote',
  'createNoteCursor',
  'moveNoteCursor',
  'createJob',
  'parkUnclaimedJob',
  'claimJob',
  'finishJob',
  'retryJob',
  'cancelJob',
  'retryEndedJob',
  'acquireDueJobs',
  'markJobSent',
  'repairCounters',
]);

/** A store (the in-memory one by default), recording the name of every write method called on it. */
export function recordingStore(): { store: MemoryStore; writes: string[] };
export function recordingStore<Store extends object>(target: Store): { store: Store; writes: string[] };
export function recordingStore(target: object = new MemoryStore()): { store: object; writes: string[] } {
  const writes: string[] = [];
  const store = new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof property === 'string' && WRITE_METHODS.has(property) && typeof value === 'function') {
        return (...args: unknown[]) => {
          writes.push(property);
          return (value as (...values: unknown[]) => unknown).apply(object, args);
        };
      }
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
  return { store, writes };
}

/** A queue that keeps what it is sent; `refuse` makes it fail the given job ids (or throw, for `'all'`). */
export class RecordingQueue implements JobQueue {
  readonly messages: JobMessage[] = [];
  refuse: Set<string> | 'throw' = new Set();

  async send(messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    if (this.refuse === 'throw') throw new Error('queue endpoint unreachable');
    const refused = this.refuse;
    this.messages.push(...messages.filter((message) => !refused.has(message.job.id)));
    return {
      failed: messages.filter((message) => refused.has(message.job.id)).map((message) => message.job.id),
    };
  }

  async changeVisibility(): Promise<void> {}
}

export interface LogLine {
  level: 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export const reportPayload = z.strictObject({
  team: z.string().min(1),
  format: z.enum(['pdf', 'csv']).optional(),
});

/** The tasks of the tests: `send-report` validates its payload; `cleanup` limits concurrency and has a misfire grace. */
export function testTasks(extra: Record<string, TaskOptions> = {}): TaskRegistry {
  const modules: Record<string, unknown> = {
    'send-report': {
      default: defineTask({ payloadSchema: reportPayload, handler: () => undefined, resultTtlSeconds: 3600 }),
    },
    cleanup: {
      default: defineTask({
        handler: () => undefined,
        maxRunningJobs: 2,
        misfireGraceSeconds: 120,
        retry: { maxAttempts: 5 },
        events: 'all',
      }),
    },
  };
  for (const [id, options] of Object.entries(extra)) modules[id] = { default: defineTask(options) };
  return staticTaskRegistry(modules);
}

export interface Harness {
  admin: AdminApi;
  /** Sends a request and returns the answer, asserting nothing. */
  call(request: Record<string, unknown>): Promise<AdminResponse>;
  /** Sends a request that must succeed and returns its result. */
  ok<Result = Record<string, unknown>>(request: Record<string, unknown>): Promise<Result>;
  store: MemoryStore;
  writes: string[];
  queue: RecordingQueue;
  clock: ManualClock;
  logs: LogLine[];
  /** The events the calls published. */
  events: RecordingPublisher;
  deps: AdminDeps;
  /** Every pause a waiting call made (ms); each advances `clock` and then runs `onPause`. */
  pauses: number[];
  /** What happens while a call waits (a worker finishing the job, say). */
  onPause?: (pauseCount: number) => Promise<void> | void;
}

export function createHarness(options: { tasks?: TaskRegistry; newId?: () => string } = {}): Harness {
  const { store, writes } = recordingStore();
  const queue = new RecordingQueue();
  const clock = new ManualClock(T0);
  const logs: LogLine[] = [];
  const events = new RecordingPublisher();
  let sequence = 0;
  const deps: AdminDeps = {
    scheduleStore: store,
    jobStore: store,
    queue,
    tasks: options.tasks ?? testTasks(),
    clock,
    random: seededRandom(),
    maxFiresPerPlan: 1_000,
    logger: {
      warn: (message, fields) => logs.push({ level: 'warn', message, ...(fields && { fields }) }),
      error: (message, fields) => logs.push({ level: 'error', message, ...(fields && { fields }) }),
    },
    newId: options.newId ?? (() => `id-${++sequence}`),
    events,
    sleep: async (ms) => {
      harness.pauses.push(ms);
      clock.advance(ms);
      await harness.onPause?.(harness.pauses.length);
    },
  };
  const admin = createAdminApi(deps);
  const harness: Harness = {
    admin,
    call: (request) => admin(request),
    async ok<Result>(request: Record<string, unknown>) {
      const response = await admin(request);
      if (!response.ok)
        throw new Error(`expected ${String(request.action)} to succeed: ${JSON.stringify(response.error)}`);
      return response.result as Result;
    },
    store,
    writes,
    queue,
    clock,
    logs,
    events,
    deps,
    pauses: [],
  };
  return harness;
}

/** The error of an answer that must be an error. */
export function errorOf(response: AdminResponse): { code: string; message: string; details?: unknown } {
  if (response.ok) throw new Error(`expected an error, got ${JSON.stringify(response.result)}`);
  return response.error;
}

export const everyMinute = { type: 'cron', expression: '* * * * *' } as const;
export const nightlyBerlin = { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' } as const;
