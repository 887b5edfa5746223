import type { EpochMs } from '../../core/clock';
import type { RuntimeDeps } from '../dependencies';
import { dispatchDueSchedules } from '../tick/dispatch-due';
import { phasedDispatchDeps } from '../tick/phased-dispatch-deps';
import { dispatcherOf, type FanOutTotals, fanOutDispatch } from './fan-out-dispatch';

/**
 * The tick's dispatch of due schedules: with `dispatchers` configured, fanned out over leased shards
 * (ADR 0006); with 0, every shard by the tick itself, without shard leases.
 */
export async function dispatchForTick(
  deps: RuntimeDeps,
  owner: string,
  startedAt: EpochMs,
  sleep?: (ms: number) => Promise<void>,
): Promise<FanOutTotals> {
  const { config, logger } = deps;
  if (config.dispatchers > 0) return fanOutDispatch(deps, owner, dispatcherOf(deps, sleep));
  const totals = await dispatchDueSchedules(phasedDispatchDeps(deps, sleep), {
    owner,
    stopAcquiringAt: startedAt + config.tickBudgetMs,
    leaseMs: config.scheduleLeaseSeconds * 1000,
    batchSize: config.acquireBatchSize,
    concurrency: config.tickConcurrency,
    roundsInFlight: config.tickRoundsInFlight,
    logger,
    dueNotes: { shardCount: config.shards, convert: config.dueNotes },
  });
  return { ...totals, shardsLeased: 0, dispatchersStarted: 0 };
}
