import { sleep as realSleep } from '../../core/clock';
import type { RuntimeDeps } from '../dependencies';
import type { DispatchDeps } from '../scheduling/dispatch';
import { dispatchDepsOf } from '../scheduling/dispatch-deps';
import { phasedJobQueue } from './phased-queue';

/**
 * For how much of its budget a tick sends at phases. Rounds run one after another and each waits up to a
 * second for its phases, so a tick with a long backlog would dispatch far fewer schedules per second;
 * after this share it sends at once (concurrent dispatchers all send at phases until then).
 */
const PHASED_SHARE_OF_BUDGET = 0.25;

/**
 * The tick's dispatch dependencies, made at its start: its queue sends each fire at its phase
 * (`phasedJobQueue`), after the whole round was noted in the fire logs (`dispatchDepsOf`).
 */
export function phasedDispatchDeps(
  deps: RuntimeDeps,
  sleep: (ms: number) => Promise<void> = realSleep,
): DispatchDeps {
  return dispatchDepsOf(
    deps,
    phasedJobQueue(deps.queue, {
      toleranceMs: deps.config.sendPhaseToleranceMs,
      phasesUntil: deps.clock.now() + deps.config.tickBudgetMs * PHASED_SHARE_OF_BUDGET,
      clock: deps.clock,
      sleep,
    }),
  );
}
