import type { DispatchRequest } from '../../core/ports/dispatcher-invoker';
import type { RuntimeDeps } from '../dependencies';
import { dispatchDepsOf } from '../dispatch/dispatch-deps';
import { type DispatchTotals, dispatchShards, emptyDispatchTotals } from '../dispatch/dispatch-shards';
import { releaseShards } from './lease-shards';

/**
 * What a dispatcher keeps between the end of its reads and the end of its shard leases: the sends and
 * note writes of its last page finish before a later tick may take the shards.
 */
export const SHARD_LEASE_MARGIN_MS = 10_000;

/** How long a tick leases the shards it hands out: a dispatcher's budget plus the margin. */
export function shardLeaseMs(config: RuntimeDeps['config']): number {
  return config.tickBudgetMs + SHARD_LEASE_MARGIN_MS;
}

/** A dispatcher's work: the totals of its dispatch, and whether it started at all. */
export interface DispatcherOutcome extends DispatchTotals {
  /** Its leases had (nearly) run out when it started: it read nothing and left the shards to a later tick. */
  expired: boolean;
}

/**
 * One dispatcher (ADR 0006): reads the notes of its shards only (`dispatchShards`), until its budget or
 * its shard leases' margin, whichever ends first; then it releases the shards so the next tick need not
 * wait for the leases to run out. Its schedules' `schedule.finished` events are the caller's to publish
 * (`finished`).
 */
export async function runDispatcher(deps: RuntimeDeps, request: DispatchRequest): Promise<DispatcherOutcome> {
  const { config, clock, logger } = deps;
  const startedAt = clock.now();
  const stopAcquiringAt = Math.min(
    startedAt + config.tickBudgetMs,
    request.leaseUntil - SHARD_LEASE_MARGIN_MS,
  );
  if (stopAcquiringAt <= startedAt) {
    logger.warn('dispatcher started after its shard leases ran out; a later tick takes the shards', {
      owner: request.owner,
      shards: request.shards,
    });
    return { ...emptyDispatchTotals(), expired: true };
  }
  try {
    const dispatchDeps = dispatchDepsOf(deps, startedAt);
    const totals = await dispatchShards(dispatchDeps, {
      owner: request.owner,
      shards: request.shards,
      stopAcquiringAt,
      concurrency: config.tickConcurrency,
      logger,
    });
    return { ...totals, expired: false };
  } finally {
    await releaseShards(deps.scheduleStore, request.shards, request.owner, clock.now(), logger);
  }
}
