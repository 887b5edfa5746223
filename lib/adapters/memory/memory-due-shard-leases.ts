import type { EpochMs } from '../../core/clock';
import type { DueShardLeaseInput, DueShardLeases } from '../../core/ports/due-shard-leases';

/** The end of a released lease: free at once; the owner stays, as in DynamoDB (a second release is a no-op). */
const RELEASED = Number.NEGATIVE_INFINITY;

/** The in-memory due-shard leases: the same contract as the DynamoDB store's (`due-shard-leases.ts`). */
export class MemoryDueShardLeases implements DueShardLeases {
  private readonly leases = new Map<number, { owner: string; until: EpochMs }>();

  constructor(readonly dueShards: number) {}

  async leaseDueShard(input: DueShardLeaseInput): Promise<EpochMs | undefined> {
    const held = this.leases.get(input.shard);
    if (held && held.until >= input.now) return undefined;
    const until = input.now + input.leaseMs;
    this.leases.set(input.shard, { owner: input.owner, until });
    return until;
  }

  async releaseDueShard(shard: number, owner: string, now: EpochMs): Promise<boolean> {
    const held = this.leases.get(shard);
    if (held?.owner === owner && held.until === RELEASED) return true;
    if (!held || held.owner !== owner || held.until < now) return false;
    held.until = RELEASED;
    return true;
  }
}
