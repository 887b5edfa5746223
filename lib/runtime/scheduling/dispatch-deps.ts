import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import { planLimitsOf } from '../config';
import type { RuntimeDeps } from '../dependencies';
import type { DispatchDeps } from './dispatch';
import { fireLoggingQueue } from './fire-logging-queue';

/**
 * Dispatch dependencies whose queue notes first fires in their tasks' logs before sending them
 * (`fireLoggingQueue`): every caller that dispatches schedules (tick, dispatchers, the admin API's
 * dispatch-on-write) builds them here.
 */
export function loggedDispatchDeps(
  parts: Omit<DispatchDeps, 'queue'> & { queue: JobQueue; jobStore: Pick<JobStore, 'logFiresToSend'> },
): DispatchDeps {
  const { jobStore, queue, ...rest } = parts;
  return { ...rest, queue: fireLoggingQueue(queue, jobStore, rest.clock) };
}

/**
 * The part of the runtime's dependencies that dispatching a schedule needs, sending through `queue` (the
 * runtime's own unless given: the tick passes one that sends at phases).
 */
export function dispatchDepsOf(deps: RuntimeDeps, queue: JobQueue = deps.queue): DispatchDeps {
  return loggedDispatchDeps({
    scheduleStore: deps.scheduleStore,
    jobStore: deps.jobStore,
    queue,
    clock: deps.clock,
    random: deps.random,
    limits: planLimitsOf(deps.config),
  });
}
