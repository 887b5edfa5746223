import { beforeEach, expect, it } from 'vitest';
import { MINUTE, range, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/** Leases on the due index's shards and reads limited to some shards (ADR 0006). */
export function dueShardLeaseContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });
  const lease = (shard: number, owner: string, now = T0) =>
    store.leaseDueShard({ shard, owner, now, leaseMs: MINUTE });

  it('gives a free shard to one owner until its lease ends, then to the next; other shards stay free', async () => {
    const first = await lease(0, 'tick-a');
    const taken = await lease(0, 'tick-b', T0 + 30 * SECOND);
    const atTheEnd = await lease(0, 'tick-b', T0 + MINUTE);
    const other = await lease(1, 'tick-b');
    const afterExpiry = await lease(0, 'tick-b', T0 + MINUTE + 1);

    expect(first).toBe(T0 + MINUTE);
    expect(taken).toBeUndefined();
    expect(atTheEnd).toBeUndefined();
    expect(other).toBe(T0 + MINUTE);
    expect(afterExpiry).toBe(T0 + 2 * MINUTE + 1);
  });

  it('of eight racing leases of one shard, exactly one wins', async () => {
    const outcomes = await Promise.all(range(8).map((n) => lease(2, `tick-${n}`)));

    expect(outcomes.filter((until) => until !== undefined)).toEqual([T0 + MINUTE]);
  });

  it('releases a shard only for its owner and while the lease lasts; a released shard is free at once, at the same instant', async () => {
    await lease(3, 'tick-a');

    const byOther = await store.releaseDueShard(3, 'tick-b', T0 + SECOND);
    const stillHeld = await lease(3, 'tick-b', T0 + SECOND);
    const byOwner = await store.releaseDueShard(3, 'tick-a', T0 + 2 * SECOND);
    const again = await store.releaseDueShard(3, 'tick-a', T0 + 2 * SECOND);
    const free = await lease(3, 'tick-b', T0 + 2 * SECOND);
    const afterLoss = await store.releaseDueShard(3, 'tick-a', T0 + 4 * SECOND);

    expect([byOther, stillHeld, byOwner, again, free, afterLoss]).toEqual([
      false,
      undefined,
      true,
      true,
      T0 + 2 * SECOND + MINUTE,
      false,
    ]);
    expect(await lease(3, 'tick-c', T0 + 5 * SECOND)).toBeUndefined();
  });
}
