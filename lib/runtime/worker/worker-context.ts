import type { RuntimeDeps } from '../dependencies';
import type { TaskRegistry } from '../tasks/registry';
import type { JobEventBatch } from './job-events';

/** Counts of one worker invocation, turned into metrics. */
export interface WorkerCounters {
  succeeded: number;
  failed: number;
  retried: number;
  missed: number;
  /** Put back in the queue for later (no slot, or the previous attempt still running). */
  deferred: number;
  duplicates: number;
  unreadable: number;
  /** Job start minus its run time, for jobs that started (ms). */
  startLagMs: number[];
}

/** What processing one message needs. */
export interface WorkerContext {
  deps: RuntimeDeps;
  registry: TaskRegistry;
  events: JobEventBatch;
  counters: WorkerCounters;
  /** Milliseconds until the Lambda invocation times out. */
  remainingMs: () => number;
  sleep: (ms: number) => Promise<void>;
}

export function emptyCounters(): WorkerCounters {
  return {
    succeeded: 0,
    failed: 0,
    retried: 0,
    missed: 0,
    deferred: 0,
    duplicates: 0,
    unreadable: 0,
    startLagMs: [],
  };
}

/** `done`: delete the message. `retry_later`: report it as a batch item failure so the queue redelivers it. */
export type MessageOutcome = 'done' | 'retry_later';
