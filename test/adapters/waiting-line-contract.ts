import { beforeEach, expect, it } from 'vitest';
import type { JobMessageBody } from '../../lib/core/model/job-message';
import { linePosition } from '../../lib/core/ports/waiting-line';
import {
  jobRequest,
  limitedClaim,
  MINUTE,
  SECOND,
  type Store,
  type StoreFixture,
  T0,
} from './store-fixtures';

function waiting(
  id: string,
  runAt: number,
  extra: Partial<JobMessageBody> = {},
  priority?: 'critical',
): JobMessageBody {
  return {
    job: jobRequest(id, { task: 'limited', runAt, ...(priority && { priority }) }),
    attempt: 1,
    ...extra,
  };
}

/** Waiting lines: ordered by priority then run time, one entry per job, held by one waker at a time. */
export function waitingLineContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  const lease = (owner: string, count: number, now = T0, leased: 'skip' | 'count' = 'skip') =>
    store.leaseLineHead({ task: 'limited', owner, now, leaseMs: 10 * SECOND, count, leased });

  it('hands out the head of the line in priority, then run-time order, with each message as it joined', async () => {
    const fire = waiting('fire', T0 + 3, {
      revision: { createdAt: T0 - MINUTE, version: 2, firesFrom: T0 - MINUTE },
    });
    await store.joinLine({ message: waiting('second', T0 + 2), now: T0 });
    await store.joinLine({ message: fire, now: T0 });
    await store.joinLine({ message: waiting('first', T0 + 1), now: T0 });
    await store.joinLine({ message: waiting('urgent', T0 + 9, {}, 'critical'), now: T0 });
    await store.joinLine({
      message: { ...waiting('other-task', T0), job: jobRequest('o', { task: 'other' }) },
      now: T0,
    });

    const head = await lease('w1', 3);
    const rest = await lease('w2', 10);

    expect(head.map((entry) => entry.message.job.id)).toEqual(['urgent', 'first', 'second']);
    expect(head[0]).toMatchObject({
      task: 'limited',
      joinedAt: T0,
      message: { job: { priority: 'critical' } },
    });
    expect(rest).toEqual([{ task: 'limited', position: linePosition(fire), message: fire, joinedAt: T0 }]);
    expect(await store.waitingCount('limited')).toBe(4);
    expect(await store.waitingCount('other')).toBe(1);
    expect(await store.isWaiting('limited', linePosition(fire))).toBe(true);
    expect(await store.isWaiting('limited', head[0]?.position ?? '')).toBe(true);
    expect(await store.isWaiting('other', linePosition(fire))).toBe(false);
    expect(await store.isWaiting('absent', linePosition(fire))).toBe(false);
  });

  it('keeps one entry per job: joining again keeps its place and the higher attempt, and ends a hold on it', async () => {
    await store.joinLine({ message: waiting('a', T0 + 1), now: T0 });
    await store.joinLine({ message: waiting('b', T0 + 2), now: T0 });
    await store.joinLine({ message: { ...waiting('a', T0 + 1), attempt: 2 }, now: T0 + SECOND });
    await store.joinLine({ message: waiting('a', T0 + 1), now: T0 + 2 * SECOND });
    const held = await lease('w1', 1);
    await store.joinLine({ message: { ...waiting('a', T0 + 1), attempt: 2 }, now: T0 + 3 * SECOND });

    const again = await lease('w2', 1);

    expect(await store.waitingCount('limited')).toBe(2);
    expect(held.map((entry) => [entry.message.job.id, entry.message.attempt])).toEqual([['a', 2]]);
    expect(again.map((entry) => [entry.message.job.id, entry.message.attempt])).toEqual([['a', 2]]);
  });

  it('gives each held entry to one waker until its hold ends: skipped, or counted as woken', async () => {
    for (const [index, id] of ['a', 'b', 'c'].entries()) {
      await store.joinLine({ message: waiting(id, T0 + index), now: T0 });
    }

    const first = await lease('w1', 1);
    const skipping = await lease('w2', 1);
    const counting = await lease('w3', 2, T0, 'count');
    const afterHolds = await lease('w4', 3, T0 + 11 * SECOND);

    expect(first.map((entry) => entry.message.job.id)).toEqual(['a']);
    expect(skipping.map((entry) => entry.message.job.id)).toEqual(['b']);
    expect(counting).toEqual([]);
    expect(afterHolds.map((entry) => entry.message.job.id)).toEqual(['a', 'b', 'c']);
  });

  it("takes only a joiner's own entry out of the line, and only within the count (held and passed-over entries count)", async () => {
    for (const [index, id] of ['a', 'b', 'c'].entries()) {
      await store.joinLine({ message: waiting(id, T0 + index), now: T0 });
    }
    await lease('w1', 1);
    const only = (owner: string, id: string, count: number) =>
      store.leaseLineHead({
        task: 'limited',
        owner,
        now: T0,
        leaseMs: 10 * SECOND,
        count,
        leased: 'count',
        only: linePosition(waiting(id, T0 + ['a', 'b', 'c'].indexOf(id))),
      });

    // Act: a is held; b is the first free entry; c comes after b
    const cBeyondCount = await only('w2', 'c', 2);
    const cWithinCount = await only('w3', 'c', 3);
    const b = await only('w4', 'b', 2);

    // Assess: nobody else's entry was held (b was still free for its own turn); c and b left the line
    // without a hold, and a, held by its waker, stays
    expect(cBeyondCount).toEqual([]);
    expect(cWithinCount.map((entry) => entry.message.job.id)).toEqual(['c']);
    expect(b.map((entry) => entry.message.job.id)).toEqual(['b']);
    expect(await store.waitingCount('limited')).toBe(1);
    expect(await lease('w5', 3, T0 + 11 * SECOND)).toHaveLength(1);
  });

  it('takes a woken entry out only for the waker holding it; a job that joined again stays', async () => {
    await store.joinLine({ message: waiting('a', T0), now: T0 });
    await store.joinLine({ message: waiting('b', T0 + 1), now: T0 });
    const [a, b] = await lease('w1', 2);
    if (!a || !b) throw new Error('expected two entries');

    await store.leaveLine('limited', a.position, 'someone-else');
    const afterStranger = await store.waitingCount('limited');
    await store.leaveLine('limited', a.position, 'w1');
    await store.joinLine({ message: waiting('b', T0 + 1), now: T0 + SECOND });
    await store.leaveLine('limited', b.position, 'w1');
    await store.leaveLine('limited', a.position, 'w1');

    expect(afterStranger).toBe(2);
    expect((await lease('w2', 5)).map((entry) => entry.message.job.id)).toEqual(['b']);
  });

  it("reads a task's slots: taken, the limit they were taken under, not paused", async () => {
    const before = await store.taskSlots('limited');
    await store.claimJob(limitedClaim('a', 3));
    await store.claimJob(limitedClaim('b', 3));

    expect(before).toBeUndefined();
    expect(await store.taskSlots('limited')).toEqual({
      task: 'limited',
      running: 2,
      limit: 3,
      paused: false,
    });
    expect(await store.allTaskSlots()).toEqual([{ task: 'limited', running: 2, limit: 3, paused: false }]);
  });

  it('takes no slot of a paused task, and takes one again once it is resumed', async () => {
    await store.claimJob(limitedClaim('a', 3));
    const paused = await store.setTaskPaused('limited', true);
    const whilePaused = await store.claimJob(limitedClaim('b', 3));
    const resumed = await store.setTaskPaused('limited', false);
    const afterResume = await store.claimJob(limitedClaim('c', 3));
    const unknownPaused = await store.setTaskPaused('never-ran', true);

    expect(paused).toEqual({ task: 'limited', running: 1, limit: 3, paused: true });
    expect(whilePaused).toEqual({ status: 'no_slot', running: 1 });
    expect(resumed).toEqual({ task: 'limited', running: 1, limit: 3, paused: false });
    expect(afterResume.status).toBe('claimed');
    expect(unknownPaused).toEqual({ task: 'never-ran', running: 0, limit: null, paused: true });
    expect(await store.taskSlots('never-ran')).toEqual(unknownPaused);
  });
}
