import type { EpochMs } from '../../core/clock';
import { mapWithConcurrency } from '../../core/concurrency';
import type { DueShardLeases } from '../../core/ports/due-shard-leases';
import type { Logger } from '../observability/logger';

/** Leases taken at once (one conditional write each). */
const LEASES_IN_FLIGHT = 16;

export interface LeasedShards {
  shards: number[];
  /** The earliest end among the leases taken (they are taken at the same `now`, so all equal). */
  leaseUntil: EpochMs;
  /** Leases that failed with an error (not lost to another owner): those shards wait for a later tick. */
  errors: number;
}

/**
 * Takes the lease of every due-index shard nobody holds, one conditional write each. A shard held by
 * another tick (or its dispatcher) is left to it; one whose write failed waits for the next tick.
 */
export async function leaseFreeShards(
  leases: DueShardLeases,
  input: { owner: string; now: EpochMs; leaseMs: number; logger: Logger },
): Promise<LeasedShards> {
  let errors = 0;
  const all = Array.from({ length: leases.dueShards }, (_, shard) => shard);
  const taken = await mapWithConcurrency(all, LEASES_IN_FLIGHT, async (shard) => {
    try {
      const until = await leases.leaseDueShard({
        shard,
        owner: input.owner,
        now: input.now,
        leaseMs: input.leaseMs,
      });
      return until === undefined ? undefined : { shard, until };
    } catch (error) {
      errors += 1;
      input.logger.error('due shard could not be leased; a later tick takes it', { shard, error });
      return undefined;
    }
  });
  const held = taken.filter((lease) => lease !== undefined);
  return {
    shards: held.map((lease) => lease.shard),
    leaseUntil: Math.min(...held.map((lease) => lease.until), input.now + input.leaseMs),
    errors,
  };
}

/** Releases shard leases best effort: one that fails simply runs out. */
export async function releaseShards(
  leases: DueShardLeases,
  shards: readonly number[],
  owner: string,
  now: EpochMs,
  logger: Logger,
): Promise<void> {
  await mapWithConcurrency(shards, LEASES_IN_FLIGHT, async (shard) => {
    try {
      await leases.releaseDueShard(shard, owner, now);
    } catch (error) {
      logger.warn('due shard lease not released; it runs out by itself', { shard, error });
    }
  });
}
