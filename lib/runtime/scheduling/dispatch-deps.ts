import type { JobQueue } from '../../core/ports/job-queue';
import { planLimitsOf } from '../config';
import type { RuntimeDeps } from '../dependencies';
import type { DispatchDeps } from './dispatch';
import { fireLoggingQueue } from './fire-logging-queue';

/**
 * The part of the runtime's dependencies that dispatching a schedule needs. Its queue notes first fires
 * in their tasks' logs before sending (`fireLoggingQueue`) and sends through `queue` (the runtime's own
 * unless given: the tick passes one that sends at phases).
 */
export function dispatchDepsOf(deps: RuntimeDeps, queue: JobQueue = deps.queue): DispatchDeps {
  return {
    scheduleStore: deps.scheduleStore,
    queue: fireLoggingQueue(queue, deps.jobStore, deps.clock),
    clock: deps.clock,
    random: deps.random,
    limits: planLimitsOf(deps.config),
  };
}
