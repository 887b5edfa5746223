import { NonRetryableError } from '../lib/core/errors';
import type { JsonValue } from '../lib/core/json';
import { defineTask, type JobContext } from '../lib/runtime/tasks/define-task';
import { staticTaskRegistry, type TaskRegistry } from '../lib/runtime/tasks/registry';
import type { Observer } from './observer';
import type { Simulation } from './scheduler';

/**
 * What a simulated handler does, from its payload: run for `ms` and return, throw (retried), throw a
 * `NonRetryableError`, return a value the store refuses, or overrun its timeout ignoring its signal.
 * `rev` is the payload's revision (updates bump it: a start after an update must run the new one).
 */
export interface SimPayload {
  run: 'ok' | 'throw' | 'fatal' | 'unstorable' | 'overrun';
  ms: number;
  rev: number;
}

/** The simulation's tasks: their limits are what the observer checks. */
export const SIM_TASKS = {
  steady: { timeoutSeconds: 30 },
  limited: { timeoutSeconds: 30, maxRunningJobs: 2 },
  single: { timeoutSeconds: 20, maxRunningJobs: 1 },
  rated: { timeoutSeconds: 30, rateLimit: { max: 2, perSeconds: 10 } },
  paced: { timeoutSeconds: 30, maxRunningJobs: 3, rateLimit: { max: 5, perSeconds: 5 } },
} as const;

export type SimTask = keyof typeof SIM_TASKS;
/** Every task's `retry.maxAttempts`. */
export const SIM_MAX_ATTEMPTS = 3;
export const SIM_TASK_IDS = Object.keys(SIM_TASKS) as SimTask[];

/** The registry of the simulated worker and admin API: every task runs `runSimulatedHandler`. */
export function simRegistry(sim: Simulation, observer: Observer): TaskRegistry {
  const modules: Record<string, unknown> = {};
  for (const task of SIM_TASK_IDS) {
    modules[task] = {
      default: defineTask({
        ...SIM_TASKS[task],
        retry: { maxAttempts: SIM_MAX_ATTEMPTS, backoffSeconds: 2, maxBackoffSeconds: 30 },
        handler: (payload: JsonValue, context: JobContext) =>
          runSimulatedHandler(sim, observer, task, payload as unknown as SimPayload, context),
      }),
    };
  }
  return staticTaskRegistry(modules);
}

async function runSimulatedHandler(
  sim: Simulation,
  observer: Observer,
  task: SimTask,
  payload: SimPayload,
  context: JobContext,
): Promise<JsonValue | undefined> {
  const run = observer.started(task, context, payload);
  try {
    // The handler sleeps in its invocation: it never wakes once that died.
    if (payload.run === 'overrun') {
      await sim.sleep(SIM_TASKS[task].timeoutSeconds * 1000 + payload.ms, undefined, run.invocation);
    } else {
      await untilAborted(sim.sleep(payload.ms, context.signal, run.invocation), context.signal);
    }
    if (payload.run === 'throw') throw new Error('the simulated handler failed');
    if (payload.run === 'fatal') throw new NonRetryableError('the simulated handler failed for good');
    observer.returned(run);
    if (payload.run === 'unstorable') return { tooDeep: nested(40) };
    return { rev: payload.rev };
  } finally {
    observer.ended(run);
  }
}

function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

function nested(depth: number): JsonValue {
  return depth === 0 ? 0 : { n: nested(depth - 1) };
}
