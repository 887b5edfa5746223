import type { WokenEntry } from '../../core/ports/waiting-line';
import type { RuntimeDeps } from '../dependencies';
import type { PausedTasks } from '../flow/paused-tasks';
import type { TaskRegistry } from '../tasks/registry';
import type { FailureNotices } from './failure-notices';
import type { JobEventBatch } from './job-events';

/** Counts of one worker invocation, turned into metrics. */
export interface WorkerCounters {
  succeeded: number;
  failed: number;
  retried: number;
  missed: number;
  /** Put back in the queue for later (the previous attempt still running, or the line unavailable). */
  deferred: number;
  /** Joined their task's waiting line (no free slot, or the task paused). */
  waiting: number;
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
  /** Jobs that failed for good, for their task's failure destination. */
  failures: FailureNotices;
  counters: WorkerCounters;
  /** Milliseconds until the invocation times out; Infinity when it has no end (no Lambda context). */
  remainingMs: () => number;
  /**
   * Whether the sandbox is ended after this invocation when a handler is still running (Lambda). Then a
   * handler that ignores its signal is waited for until the invocation's end only; otherwise until it settles.
   */
  endsSandbox: boolean;
  /** Told when a handler's deadline passes before it settled (`WorkerHandlerOptions.onHandlerDeadline`). */
  onHandlerDeadline?: (jobId: string) => void;
  /** Jobs whose handler was still running when their outcome was recorded. */
  stillRunning: string[];
  /** Paused tasks as this warm worker last read them (for tasks without `maxRunningJobs`). */
  pausedTasks: PausedTasks;
  /**
   * Runs a woken job this message's delivery handed a slot to in this invocation, beside the rest of
   * the delivery (`carry-on.ts`); absent where nothing may be carried on.
   */
  carryOn?: (woken: WokenEntry) => void;
}

export function emptyCounters(): WorkerCounters {
  return {
    succeeded: 0,
    failed: 0,
    retried: 0,
    missed: 0,
    deferred: 0,
    waiting: 0,
    duplicates: 0,
    unreadable: 0,
    startLagMs: [],
  };
}

/** `done`: delete the message. `retry_later`: report it as a batch item failure so the queue redelivers it. */
export type MessageOutcome = 'done' | 'retry_later';

/** Sleeps until the clock reaches `at` (timers may wake a millisecond early: checked a few times). */
export async function waitUntil(ctx: WorkerContext, at: number): Promise<void> {
  for (let check = 0, wait = at - ctx.deps.clock.now(); check < 3 && wait > 0; check++) {
    await ctx.deps.sleep(wait);
    wait = at - ctx.deps.clock.now();
  }
}
