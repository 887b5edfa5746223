import type { EpochMs } from '../clock';

export interface DueShardLeaseInput {
  /** The due-index shard, 0 to `dueShards − 1`. */
  shard: number;
  /** Unique per tick invocation: the dispatchers it hands the shard to release it under this owner. */
  owner: string;
  now: EpochMs;
  leaseMs: number;
}

/**
 * Leases on the shards of the schedules' due index (ADR 0006): the tick takes one per shard with one
 * conditional write and hands the shards it holds to parallel dispatchers, so two ticks never read the
 * same shard at once. A lease ends by itself (`leaseMs`): the shard of a dispatcher that crashed is
 * taken by a later tick. Shard leases only spare overlapping work: the dispatch itself needs none
 * (a schedule moves on with its own conditional write, ADR 0005).
 */
export interface DueShardLeases {
  /** How many shards the due index of schedules has. */
  readonly dueShards: number;

  /**
   * Takes the lease of one shard when nobody holds it (no lease, or one that ended before `now`).
   * Returns the lease's end, or undefined when another owner holds it. A retry of a lease that had
   * applied (its answer lost) is recognised and returns the same end.
   */
  leaseDueShard(input: DueShardLeaseInput): Promise<EpochMs | undefined>;

  /** Ends a shard lease early, if `owner` still holds it; false when it does not (it expired, or another took it). */
  releaseDueShard(shard: number, owner: string, now: EpochMs): Promise<boolean>;
}
