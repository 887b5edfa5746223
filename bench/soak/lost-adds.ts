import type { JobQueue } from '../../lib/core/ports/job-queue';
import type { JobStore } from '../../lib/core/ports/job-store';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import { type Faults, InjectedCrash } from './faults';

/**
 * The admin API as the soak calls it, with `lostAdd` injected: an `add_jobs` call dies once its jobs are
 * stored, at its send. Nothing reaches the queue, the parking that follows a failed send cannot happen
 * either (the process is gone), and the caller gets an error, as from a Lambda that died. The jobs must
 * still run once: the caller adds them again (`do_nothing` keeps them) or not at all.
 */
export function adminThatDiesAfterStoring(
  newAdmin: (deps: () => RuntimeDeps) => AdminHandler,
  deps: RuntimeDeps,
  faults: Faults,
): AdminHandler {
  return async (event, context) => {
    if (!isAddJobs(event)) return newAdmin(() => deps)(event, context);
    let died = false;
    const queue: JobQueue = {
      send: async (messages) => {
        // The first call that sends always dies, so that every soak injects the fault at least once.
        const first = faults.enabled && faults.injected.lostAdd === 0;
        if (first) faults.injected.lostAdd += 1;
        if (first || faults.strike('lostAdd')) {
          died = true;
          throw new InjectedCrash('admin API after storing jobs, before sending them');
        }
        return deps.queue.send(messages);
      },
      changeVisibility: (message, seconds) => deps.queue.changeVisibility(message, seconds),
    };
    const jobStore = new Proxy(deps.jobStore, {
      get: (target, property) => {
        if (property === 'parkUnclaimedJob' && died) {
          return async () => {
            throw new InjectedCrash('admin API (already dead)');
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) satisfies JobStore;
    const answer = await newAdmin(() => ({ ...deps, queue, jobStore }))(event, context);
    return died
      ? { ok: false, error: { code: 'internal_error', message: 'injected: the admin API died' } }
      : answer;
  };
}

function isAddJobs(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { action?: unknown }).action === 'add_jobs';
}
