import { beforeEach, expect, it } from 'vitest';
import { COUNTER_REPAIR_SETTLE_MS } from '../../lib/core/ports/counter-repair';
import { limitedClaim, MINUTE, SECOND, type Store, type StoreFixture, SUCCESS, T0 } from './store-fixtures';

const SETTLE = COUNTER_REPAIR_SETTLE_MS;

/** Task counters: never below zero, and repaired without ever counting fewer running jobs than there are. */
export function counterContract(fixture: () => StoreFixture): void {
  let store: Store;
  let setRunningCount: StoreFixture['setRunningCount'];
  beforeEach(() => {
    ({ store, setRunningCount } = fixture());
  });

  const count = async (task = 'limited') => (await store.runningCounts()).get(task);

  it('never takes a counter below zero: a run ending while its counter is 0 ends without giving a slot back', async () => {
    await store.claimJob(limitedClaim('a', 2));
    await store.claimJob(limitedClaim('b', 2));
    await setRunningCount('limited', 0);

    const { job: finished } = await store.finishJob({
      jobId: 'a',
      owner: 'w-a',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
    });
    const { job: retrying } = await store.retryJob({
      jobId: 'b',
      owner: 'w-b',
      failedAttempt: 1,
      error: { type: 'Error', message: 'boom' },
      retryAt: T0 + MINUTE,
      now: T0 + SECOND,
    });
    const afterEnds = await count();
    const next = await store.claimJob(limitedClaim('c', 1, T0 + 2 * SECOND));
    const pastLimit = await store.claimJob(limitedClaim('d', 1, T0 + 2 * SECOND));

    expect(finished).toMatchObject({ status: 'success', holdsSlot: false, leaseOwner: null });
    expect(retrying).toMatchObject({ status: 'retrying', holdsSlot: false, leaseOwner: null });
    expect(afterEnds).toBe(0);
    expect(next.status).toBe('claimed');
    expect(pastLimit).toEqual({ status: 'no_slot', running: 1 });
  });

  it('raises a counter that counts fewer running jobs than hold a slot at once', async () => {
    await store.claimJob(limitedClaim('a', 5));
    await store.claimJob(limitedClaim('b', 5));
    await setRunningCount('limited', 0);

    const corrections = await store.repairCounters(T0);

    expect(corrections).toEqual(new Map([['limited', { was: 0, now: 2 }]]));
    expect(await count()).toBe(2);
    expect((await store.repairCounters(T0 + SECOND)).size).toBe(0);
  });

  it('lowers a counter only when two repairs a settle period apart saw the same count and no slot change', async () => {
    await store.claimJob(limitedClaim('held', 5));
    await setRunningCount('limited', 4);
    await setRunningCount('ghost-task', 2);

    const first = await store.repairCounters(T0);
    const tooSoon = await store.repairCounters(T0 + SETTLE - SECOND);
    const countsBefore = await store.runningCounts();
    const settled = await store.repairCounters(T0 + SETTLE);

    expect(first.size).toBe(0);
    expect(tooSoon.size).toBe(0);
    expect(countsBefore.get('limited')).toBe(4);
    expect(countsBefore.get('ghost-task')).toBe(2);
    expect(settled).toEqual(
      new Map([
        ['limited', { was: 4, now: 1 }],
        ['ghost-task', { was: 2, now: 0 }],
      ]),
    );
    expect(await count()).toBe(1);
    expect(await count('ghost-task')).toBe(0);
    expect((await store.repairCounters(T0 + 2 * SETTLE)).size).toBe(0);
  });

  it('starts the settle period again when a slot is taken or given back between two repairs', async () => {
    await store.claimJob(limitedClaim('a', 5));
    await setRunningCount('limited', 3);

    const observed = await store.repairCounters(T0);
    await store.claimJob(limitedClaim('b', 5, T0 + SECOND));
    const afterClaim = await store.repairCounters(T0 + SETTLE);
    await store.finishJob({ jobId: 'a', owner: 'w-a', result: SUCCESS, expiresAt: T0 + MINUTE });
    const afterFinish = await store.repairCounters(T0 + 2 * SETTLE);
    const countBeforeSettled = await count();
    const settled = await store.repairCounters(T0 + 3 * SETTLE);

    expect([observed.size, afterClaim.size, afterFinish.size]).toEqual([0, 0, 0]);
    expect(countBeforeSettled).toBe(3);
    expect(settled).toEqual(new Map([['limited', { was: 3, now: 1 }]]));
  });
}
