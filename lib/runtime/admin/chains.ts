import { ChainStarter } from '../dispatch/chain-start';
import { SendTimes } from '../dispatch/send-fires';
import type { AdminDeps } from './deps';

/**
 * The starter of the note chains an admin API instance's calls write (`ActionContext.chains`): one per
 * instance, for the admin API's requests and the reconcile of schedules declared in code alike.
 */
export function adminChainStarter(deps: AdminDeps): ChainStarter {
  return new ChainStarter(
    {
      scheduleStore: deps.scheduleStore,
      jobStore: deps.jobStore,
      queue: deps.queue,
      clock: deps.clock,
      random: deps.random,
      maxFiresPerPlan: deps.maxFiresPerPlan,
      sleep: deps.sleep,
      // A call sends the fires it dispatches at once (the worker waits out the sub-second rest).
      toleranceMs: 0,
      sendTimes: new SendTimes(),
      phasesUntil: 0,
    },
    deps.newId,
  );
}
