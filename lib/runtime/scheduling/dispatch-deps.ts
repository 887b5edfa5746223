import { planLimitsOf } from '../config';
import type { RuntimeDeps } from '../dependencies';
import type { DispatchDeps } from './dispatch';

/** The part of the runtime's dependencies that dispatching a schedule needs. */
export function dispatchDepsOf(deps: RuntimeDeps): DispatchDeps {
  return {
    scheduleStore: deps.scheduleStore,
    queue: deps.queue,
    clock: deps.clock,
    random: deps.random,
    limits: planLimitsOf(deps.config),
  };
}
