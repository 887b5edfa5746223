import type { DispatchRequest } from '../../core/ports/dispatcher-invoker';
import type { RuntimeDeps } from '../dependencies';
import { addDispatchTotals, type DispatchTotals, emptyDispatchTotals } from '../dispatch/dispatch-shards';
import { leaseFreeShards, releaseShards } from './lease-shards';
import { runDispatcher, shardLeaseMs } from './run-dispatcher';
import { shardSets } from './shard-sets';

/**
 * Starts one dispatcher; resolves to its totals when it ran in this process, or undefined when it runs
 * elsewhere (the dispatcher Lambda, invoked asynchronously: its totals go to its own logs and metrics).
 */
export type StartDispatcher = (request: DispatchRequest) => Promise<DispatchTotals | undefined>;

/** The dispatcher Lambda when the configuration names one, else the same code in this process. */
export function dispatcherOf(deps: RuntimeDeps): StartDispatcher {
  const invoker = deps.dispatcherInvoker;
  if (invoker) {
    return async (request) => {
      await invoker.invoke(request);
      return undefined;
    };
  }
  return (request) => runDispatcher(deps, request);
}

export interface FanOutTotals extends DispatchTotals {
  /** Due shards this tick leased and handed out. */
  shardsLeased: number;
  /** Dispatchers started (in this process or as Lambda invocations). */
  dispatchersStarted: number;
}

/**
 * The tick's fan-out (ADR 0006): leases every free due shard (one conditional write each),
 * splits them into `config.dispatchers` sets and starts a dispatcher on each, all at once. A dispatcher
 * that could not be started has its shards released for the next tick.
 */
export async function fanOutDispatch(
  deps: RuntimeDeps,
  owner: string,
  start: StartDispatcher = dispatcherOf(deps),
): Promise<FanOutTotals> {
  const { config, clock, logger } = deps;
  const leased = await leaseFreeShards(deps.scheduleStore, {
    owner,
    now: clock.now(),
    leaseMs: shardLeaseMs(config),
    logger,
  });
  const totals: FanOutTotals = {
    ...emptyDispatchTotals(),
    errors: leased.errors,
    shardsLeased: leased.shards.length,
    dispatchersStarted: 0,
  };
  const sets = shardSets(leased.shards, config.dispatchers);
  const outcomes = await Promise.all(
    sets.map(async (shards) => {
      try {
        const outcome = await start({ owner, shards, leaseUntil: leased.leaseUntil });
        totals.dispatchersStarted += 1;
        return outcome;
      } catch (error) {
        totals.errors += 1;
        logger.error('dispatcher could not be started; its shards wait for the next tick', { shards, error });
        await releaseShards(deps.scheduleStore, shards, owner, clock.now(), logger);
        return undefined;
      }
    }),
  );
  for (const outcome of outcomes) if (outcome) addDispatchTotals(totals, outcome);
  return totals;
}
