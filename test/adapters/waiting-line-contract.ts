import { beforeEach, expect, it } from 'vitest';
import type { JobMessageBody } from '../../lib/core/model/job-message';
import { type RateLimit, startIntervalMs } from '../../lib/core/model/rate-limit';
import type { ClaimJobInput } from '../../lib/core/ports/job-store';
import {
  CARRIED_RESEND_MS,
  type LineEntry,
  linePosition,
  WOKEN_RESEND_MS,
  type WokenEntry,
} from '../../lib/core/ports/waiting-line';
import {
  jobRequest,
  limitedClaim,
  MINUTE,
  SECOND,
  type Store,
  type StoreFixture,
  SUCCESS,
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

const ids = (entries: readonly LineEntry[]) => entries.map((entry) => entry.message.job.id);

/**
 * Waiting lines (ADR 0003, ADR 0009): ordered by priority then run time, one entry per job; a slot that
 * comes back is handed to the head in the same step, and a woken job's claim takes the slot it was
 * handed. The counter counts running jobs and woken entries with a slot.
 */
export function waitingLineContract(fixture: () => StoreFixture): void {
  let store: Store;
  let setRunningCount: StoreFixture['setRunningCount'];
  beforeEach(() => {
    ({ store, setRunningCount } = fixture());
  });

  const join = (message: JobMessageBody, now = T0) => store.joinLine({ message, now });
  const running = async () => (await store.taskSlots('limited'))?.running ?? 0;
  const head = async (): Promise<LineEntry> => {
    const entry = await store.lineHead('limited');
    if (!entry) throw new Error('expected a job waiting in the line');
    return entry;
  };
  const wakeWithSlots = (count: number, limit: number, now = T0) =>
    store.wakeHeads({ task: 'limited', now, count, take: 'slot', limit });
  /** Ends the run of `id` (claimed by `w-<id>`) with success at T0 + 1 s. */
  const finish = (id: string) =>
    store.finishJob({ jobId: id, owner: `w-${id}`, result: SUCCESS, expiresAt: T0 + MINUTE });
  /** The claim of a woken delivery of `entry`'s job (limited to `limit`), by owner `owner`. */
  const wokenClaim = (
    entry: WokenEntry,
    limit: number,
    now: number,
    owner = `w-${entry.message.job.id}`,
  ) => ({
    ...limitedClaim(entry.message.job.id, limit, now),
    job: entry.message.job,
    owner,
    woken: { position: entry.position, copy: entry.message },
  });
  const woken = (entry: WokenEntry | undefined): WokenEntry => {
    if (!entry) throw new Error('expected a woken entry');
    return entry;
  };
  /** The times of an entry woken at `at` whose message is sent. */
  const sentAt = (at: number) => ({ wokenAt: at, overdueAt: at + WOKEN_RESEND_MS });

  it('keeps its line in priority, then run-time order, each entry with its message as it joined', async () => {
    const fire = waiting('fire', T0 + 3, {
      revision: { createdAt: T0 - MINUTE, version: 2, firesFrom: T0 - MINUTE },
    });
    await join(waiting('second', T0 + 2));
    await join(fire);
    await join(waiting('first', T0 + 1));
    await join(waiting('urgent', T0 + 9, {}, 'critical'));
    await join({ ...waiting('other-task', T0), job: jobRequest('o', { task: 'other' }) });

    const first = await store.lineHead('limited');
    const all = await store.wakeHeads({ task: 'limited', now: T0 + SECOND, count: 10, take: 'none' });

    expect(first).toMatchObject({
      task: 'limited',
      joinedAt: T0,
      message: { job: { id: 'urgent', priority: 'critical' } },
    });
    expect(ids(all)).toEqual(['urgent', 'first', 'second', 'fire']);
    expect(all[3]).toEqual({
      task: 'limited',
      position: linePosition(fire),
      message: fire,
      joinedAt: T0,
      wokenAt: T0 + SECOND,
      overdueAt: T0 + SECOND + WOKEN_RESEND_MS,
      withSlot: false,
    });
    expect(await store.lineHead('limited')).toBeUndefined();
    expect((await store.lineHead('other'))?.message.job.id).toBe('o');
    // Woken entries still count as waiting until their jobs claim them
    expect(await store.waitingCount('limited')).toBe(4);
    expect(await store.waitingCount('other')).toBe(1);
    expect(await store.isWaiting('limited', linePosition(fire))).toBe(true);
    expect(await store.isWaiting('other', linePosition(fire))).toBe(false);
    expect(await store.isWaiting('absent', linePosition(fire))).toBe(false);
  });

  it('keeps one entry per job: joining again keeps its place and the higher attempt', async () => {
    await join(waiting('a', T0 + 1));
    await join(waiting('b', T0 + 2));
    await join({ ...waiting('a', T0 + 1), attempt: 2 }, T0 + SECOND);
    await join(waiting('a', T0 + 1), T0 + 2 * SECOND);

    const first = await head();
    const all = await store.wakeHeads({ task: 'limited', now: T0, count: 10, take: 'none' });

    expect(await store.waitingCount('limited')).toBe(2);
    expect([first.message.job.id, first.message.attempt]).toEqual(['a', 2]);
    expect(all.map((entry) => [entry.message.job.id, entry.message.attempt])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('counts a waiting or woken job as waiting only as the creation its entry carries: a job replaced since waits nowhere', async () => {
    const created = (id: string, createToken: string) =>
      waiting(id, T0 + 1, { job: jobRequest(id, { task: 'limited', runAt: T0 + 1, createToken }) });
    await join(created('a', 'first'));
    await join(created('b', 'first'));
    await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'none' });

    for (const id of ['a', 'b']) {
      const position = linePosition(created(id, 'first'));
      expect(await store.isWaiting('limited', position, 'first')).toBe(true);
      expect(await store.isWaiting('limited', position, 'replaced')).toBe(false);
      expect(await store.isWaiting('limited', position)).toBe(true);
    }
  });

  it("keeps a fire's copy of the newest schedule revision, whichever joins last: the older copy's check leaves the fire to it", async () => {
    const revision = (createdAt: number, version: number) => ({
      revision: { createdAt, version, firesFrom: createdAt },
    });
    const copy = (createdAt: number, version: number) =>
      waiting('fire', T0 + 1, revision(createdAt, version));
    // The resumed schedule's copy (version 3) joins before the copy its first chain sent (version 1)
    await join(copy(T0 - MINUTE, 3));
    await join(copy(T0 - MINUTE, 1), T0 + SECOND);
    const afterOlder = await head();
    // A schedule removed and added again: version 1 of the newer incarnation is the newer revision
    await join(copy(T0, 1), T0 + 2 * SECOND);
    const afterReAdd = await head();

    expect(await store.waitingCount('limited')).toBe(1);
    expect(afterOlder.message.revision).toMatchObject({ createdAt: T0 - MINUTE, version: 3 });
    expect(afterReAdd.message.revision).toMatchObject({ createdAt: T0, version: 1 });
  });

  it('wakes heads with a free slot each, up to the limit given, and none while the task is paused', async () => {
    await store.claimJob(limitedClaim('x', 3));
    for (const id of ['a', 'b', 'c', 'd']) await join(waiting(id, T0));

    const upToLimit = await wakeWithSlots(5, 3);
    const afterLimit = await wakeWithSlots(1, 3);
    await store.setTaskPaused('limited', true);
    const whilePaused = await wakeWithSlots(1, 5);
    await store.setTaskPaused('limited', false);
    const raised = await wakeWithSlots(1, 4);

    expect(ids(upToLimit)).toEqual(['a', 'b']);
    expect(upToLimit.every((entry) => entry.withSlot)).toBe(true);
    expect(afterLimit).toEqual([]);
    expect(whilePaused).toEqual([]);
    expect(ids(raised)).toEqual(['c']);
    expect(await store.taskSlots('limited')).toMatchObject({ running: 4, limit: 4, paused: false });
    expect(ids([await head()])).toEqual(['d']);
    expect(await store.waitingCount('limited')).toBe(4);
  });

  it("wakes heads without a slot for a rate's next start or a task without a limit", async () => {
    for (const id of ['a', 'b', 'c']) await join(waiting(id, T0));

    const forStart = await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'start' });
    const unlimited = await store.wakeHeads({ task: 'limited', now: T0, count: 5, take: 'none' });

    expect(forStart.map((entry) => [entry.message.job.id, entry.withSlot])).toEqual([['a', false]]);
    expect(unlimited.map((entry) => [entry.message.job.id, entry.withSlot])).toEqual([
      ['b', false],
      ['c', false],
    ]);
    expect((await store.runningCounts()).get('limited') ?? 0).toBe(0);
  });

  it('wakes a job once: a second entry of a job already woken leaves the line and takes no slot', async () => {
    await store.claimJob(limitedClaim('x', 5));
    await join(waiting('a', T0));
    const first = await wakeWithSlots(1, 5);
    // A second delivery of `a` joins while its wake-up travels
    await join(waiting('a', T0), T0 + SECOND);
    await join(waiting('b', T0));

    const second = await wakeWithSlots(2, 5, T0 + 2 * SECOND);

    expect(ids(first)).toEqual(['a']);
    expect(ids(second)).toEqual(['b']);
    expect(await running()).toBe(3);
    expect(await store.lineHead('limited')).toBeUndefined();
    expect(await store.waitingCount('limited')).toBe(2);
    expect((await store.overdueWoken('limited', T0 + WOKEN_RESEND_MS)).map((entry) => entry.wokenAt)).toEqual(
      [T0],
    );
  });

  it("releases a woken entry: its slot to the line's head, back when nobody waits or the task is paused; gone when it held none", async () => {
    await store.claimJob(limitedClaim('x', 3));
    for (const id of ['a', 'b', 'c']) await join(waiting(id, T0));
    const [a] = await wakeWithSlots(1, 3);
    const headB = await head();
    const release = (entry: LineEntry | undefined) =>
      store.releaseWoken({
        task: 'limited',
        position: woken(entry as WokenEntry).position,
        copy: { attempt: 1 },
        now: T0 + SECOND,
      });

    const handed = await release(a);
    const afterHanding = await running();
    await store.setTaskPaused('limited', true);
    const paused = await release(headB);
    const afterPaused = await running();
    await store.setTaskPaused('limited', false);
    const again = await release(headB);
    const [c] = await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'start' });
    const noSlot = await release(c);
    await join(waiting('d', T0));
    const [d] = await wakeWithSlots(1, 3);
    const nobodyWaits = await release(d);

    expect(handed).toEqual({ status: 'handed', woken: { ...headB, ...sentAt(T0 + SECOND), withSlot: true } });
    expect(afterHanding).toBe(2);
    expect(paused).toEqual({ status: 'released' });
    expect(afterPaused).toBe(1);
    expect(again).toEqual({ status: 'gone' });
    expect(noSlot).toEqual({ status: 'gone' });
    expect(nobodyWaits).toEqual({ status: 'released' });
    expect(await running()).toBe(1);
    expect(await store.waitingCount('limited')).toBe(0);
  });

  it("ends a run handing its slot to the line's head: the head is woken, the counter does not change", async () => {
    await store.claimJob(limitedClaim('a', 2));
    await store.claimJob(limitedClaim('b', 2));
    await join(waiting('c', T0));
    await join(waiting('d', T0));
    const headC = await head();

    const finished = await finish('a');
    const afterFinish = await running();
    const headD = await head();
    const retried = await store.retryJob({
      jobId: 'b',
      owner: 'w-b',
      failedAttempt: 1,
      error: { type: 'Error', message: 'boom' },
      retryAt: T0 + MINUTE,
      now: T0 + 2 * SECOND,
    });

    expect(finished.job).toMatchObject({ id: 'a', status: 'success', holdsSlot: false, leaseOwner: null });
    expect(finished.woken).toEqual({ ...headC, ...sentAt(T0 + SECOND), withSlot: true });
    expect(afterFinish).toBe(2);
    expect(retried.job).toMatchObject({ id: 'b', status: 'retrying', holdsSlot: false });
    expect(retried.woken).toEqual({ ...headD, ...sentAt(T0 + 2 * SECOND), withSlot: true });
    expect(await running()).toBe(2);
    expect(await store.lineHead('limited')).toBeUndefined();
    expect(await store.waitingCount('limited')).toBe(2);
  });

  it('ends a run the worker says holds a slot as one: handed on, refused to another owner, and ended all the same when it holds none', async () => {
    await store.claimJob(limitedClaim('a', 1));
    await join(waiting('c', T0));
    const headC = await head();
    const { concurrencyLimit: _, ...unlimited } = limitedClaim('free', 1);
    await store.claimJob(unlimited);
    const saidToHold = {
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
      heldSlot: { task: 'limited', carriedOn: false },
    };

    const notOwner = await store.finishJob({ ...saidToHold, jobId: 'a', owner: 'w-other' }).then(
      () => 'ended',
      (error: Error) => error.name,
    );
    const finished = await store.finishJob({ ...saidToHold, jobId: 'a', owner: 'w-a' });
    const holdsNone = await store.finishJob({ ...saidToHold, jobId: 'free', owner: 'w-free' });

    expect(notOwner).toBe('LeaseLostError');
    expect(finished.job).toMatchObject({ id: 'a', status: 'success', holdsSlot: false, leaseOwner: null });
    expect(finished.woken).toEqual({ ...headC, ...sentAt(T0 + SECOND), withSlot: true });
    expect(holdsNone).toEqual({ job: expect.objectContaining({ id: 'free', status: 'success' }) });
    expect(await running()).toBe(1);
  });

  it('tells a claim made again with the same input (its answer was lost) that it is its own, taking no second slot; another owner is refused', async () => {
    await store.claimJob(limitedClaim('x', 2));
    await join(waiting('a', T0));
    await store.claimJob(limitedClaim('y', 2));
    const a = woken((await finish('x')).woken);
    const claimA = wokenClaim(a, 2, T0 + SECOND);
    const claimB = limitedClaim('b', 3, T0 + SECOND);

    const first = await store.claimJob(claimA);
    const again = await store.claimJob(claimA);
    const otherOwner = await store.claimJob({ ...claimA, owner: 'w-other' });
    await store.claimJob(claimB);
    const bAgain = await store.claimJob(claimB);

    expect(first).toMatchObject({ status: 'claimed', job: { id: 'a', leaseOwner: 'w-a' } });
    expect(again).toMatchObject({ status: 'claimed', job: { id: 'a', leaseOwner: 'w-a', attempt: 1 } });
    expect(otherOwner).toMatchObject({ status: 'duplicate' });
    expect(bAgain).toMatchObject({ status: 'claimed', job: { id: 'b', leaseOwner: 'w-b' } });
    expect(await running()).toBe(3);
    expect(await store.waitingCount('limited')).toBe(0);
  });

  it('hands a slot that comes back past a head woken already (a second delivery of it joined meanwhile), which leaves the line', async () => {
    await store.claimJob(limitedClaim('x', 2));
    await store.claimJob(limitedClaim('y', 2));
    await join(waiting('a', T0));
    await join(waiting('b', T0 + 1));
    const [a] = await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'none' });
    await join(waiting('a', T0));

    const finished = await finish('x');
    const released = await store.releaseWoken({
      task: 'limited',
      position: woken(finished.woken).position,
      copy: { attempt: 1 },
      now: T0 + 2 * SECOND,
    });

    expect(a?.message.job.id).toBe('a');
    expect(finished.woken?.message.job.id).toBe('b');
    expect(released).toEqual({ status: 'released' });
    expect(await store.lineHead('limited')).toBeUndefined();
    expect(await running()).toBe(1);
    expect(await store.waitingCount('limited')).toBe(1);
  });

  it("hands a woken job's slot, given back, to a second delivery of the same job at the head, in its entry's place", async () => {
    await store.claimJob(limitedClaim('holder', 1));
    await join(waiting('a', T0));
    const handed = woken((await finish('holder')).woken);
    await join(waiting('a', T0), T0 + 1);

    const released = await store.releaseWoken({
      task: 'limited',
      position: handed.position,
      copy: { attempt: 1 },
      now: T0 + 2 * SECOND,
    });

    expect(released).toEqual({
      status: 'handed',
      woken: expect.objectContaining({
        position: handed.position,
        withSlot: true,
        ...sentAt(T0 + 2 * SECOND),
      }),
    });
    expect(await store.lineHead('limited')).toBeUndefined();
    expect(await running()).toBe(1);
    expect(await store.overdueWoken('limited', T0 + MINUTE)).toEqual([
      expect.objectContaining({ position: handed.position, withSlot: true }),
    ]);
  });

  /**
   * Where a later copy moved into its job's woken entry is found: among the entries the heads' wake
   * returns (its waker sends it; not overdue), or, moved in on a slot's way back, among the overdue ones
   * (the worker that gave the slot back sends those next).
   */
  const movedInEntry = async (wokenNow: WokenEntry[], slotComesBack: boolean) => {
    const overdue = await store.overdueWoken('limited', T0 + 2 * SECOND);
    if (slotComesBack) return overdue;
    expect(overdue).toEqual([]);
    const movedIn = wokenNow.filter((entry) => entry.movedIn);
    expect(movedIn).toHaveLength(1);
    return movedIn;
  };

  /**
   * `a` attempt 1 is woken with the slot of `holder`'s ending; meanwhile a plain delivery of attempt 1
   * ran, failed, and its retry joined the line ahead of `b`. Then the line's heads are woken with a free
   * slot, or `x`'s slot comes back (`slotComesBack`): attempt 2 must not be lost with the entry of
   * attempt 1 it is stuck behind, and attempt 1's delivery must not give attempt 2's entry back.
   */
  const retryBehindItsWokenEntry = async (slotComesBack: boolean) => {
    await store.claimJob(limitedClaim('holder', 2));
    if (slotComesBack) await store.claimJob(limitedClaim('x', 2));
    await join(waiting('a', T0));
    const first = woken((await finish('holder')).woken);
    await join(waiting('a', T0, { attempt: 2 }), T0 + SECOND);
    await join(waiting('b', T0 + 1), T0 + SECOND);

    const wokenNow = slotComesBack
      ? [woken((await finish('x')).woken)]
      : await wakeWithSlots(1, 2, T0 + 2 * SECOND);
    const [carried] = await movedInEntry(wokenNow, slotComesBack);
    const olderGivesBack = await store.releaseWoken({
      task: 'limited',
      position: first.position,
      copy: { attempt: 1 },
      now: T0 + 3 * SECOND,
    });
    const afterGiveBack = await running();
    const claim = await store.claimJob({ ...wokenClaim(woken(carried), 2, T0 + 4 * SECOND), attempt: 2 });

    expect(ids(wokenNow.filter((entry) => !entry.movedIn))).toEqual(['b']);
    expect(carried).toMatchObject({ position: first.position, withSlot: true, message: { attempt: 2 } });
    expect(await store.lineHead('limited')).toBeUndefined();
    expect(olderGivesBack).toEqual({ status: 'gone' });
    expect(afterGiveBack).toBe(2);
    expect(claim).toMatchObject({ status: 'claimed', tookWokenSlot: true, job: { id: 'a', attempt: 2 } });
    expect(await running()).toBe(2);
    expect(await store.waitingCount('limited')).toBe(1);
  };

  it("keeps a retry that joined behind its earlier attempt's woken entry when the heads are woken: the entry carries it, returned for its waker to send", () =>
    retryBehindItsWokenEntry(false));

  it("keeps a retry that joined behind its earlier attempt's woken entry when a slot comes back past it", () =>
    retryBehindItsWokenEntry(true));

  /**
   * A fire's copy sent under revision 1 is woken with the slot of `holder`'s ending; meanwhile its
   * schedule was paused and resumed, and the resume's own copy of the fire (revision 3) joined behind
   * that woken entry. Then the line's heads are woken, or `x`'s slot comes back: the older copy's check
   * would cancel the fire in favour of the newer copy, so the newer must not be lost with the older's
   * entry, and the older copy's claim and give-back must leave the entry that now carries the newer.
   */
  const newerRevisionBehindItsWokenEntry = async (slotComesBack: boolean) => {
    const copy = (version: number) =>
      waiting('fire', T0, { revision: { createdAt: T0 - MINUTE, version, firesFrom: T0 - MINUTE } });
    await store.claimJob(limitedClaim('holder', 2));
    if (slotComesBack) await store.claimJob(limitedClaim('x', 2));
    await join(copy(1));
    const older = woken((await finish('holder')).woken);
    await join(copy(3), T0 + SECOND);
    await join(waiting('b', T0 + 1), T0 + SECOND);

    const wokenNow = slotComesBack
      ? [woken((await finish('x')).woken)]
      : await wakeWithSlots(1, 2, T0 + 2 * SECOND);
    const [carried] = await movedInEntry(wokenNow, slotComesBack);
    const olderClaims = await store.claimJob(wokenClaim(older, 2, T0 + 3 * SECOND));
    const olderGivesBack = await store.releaseWoken({
      task: 'limited',
      position: older.position,
      copy: older.message,
      now: T0 + 3 * SECOND,
    });
    const afterOlder = await running();
    const newerClaims = await store.claimJob(wokenClaim(woken(carried), 2, T0 + 4 * SECOND));

    expect(ids(wokenNow.filter((entry) => !entry.movedIn))).toEqual(['b']);
    expect(older.message.revision).toMatchObject({ version: 1 });
    expect(carried).toMatchObject({
      position: older.position,
      withSlot: true,
      message: { revision: { version: 3 } },
    });
    expect(olderClaims).toMatchObject({ status: 'no_slot' });
    expect(olderGivesBack).toEqual({ status: 'gone' });
    expect(afterOlder).toBe(2);
    expect(newerClaims).toMatchObject({
      status: 'claimed',
      tookWokenSlot: true,
      job: { id: 'fire', attempt: 1 },
    });
    expect(await running()).toBe(2);
    expect(await store.waitingCount('limited')).toBe(1);
  };

  it("keeps a fire's newer-revision copy that joined behind its older copy's woken entry when the heads are woken: the entry carries it, the older copy's claim leaves it", () =>
    newerRevisionBehindItsWokenEntry(false));

  it("keeps a fire's newer-revision copy that joined behind its older copy's woken entry when a slot comes back past it", () =>
    newerRevisionBehindItsWokenEntry(true));

  it('gives the slot back instead when nobody waits, the task is paused, or it is over its limit', async () => {
    for (const id of ['a', 'b', 'c']) await store.claimJob(limitedClaim(id, 3));

    const nobodyWaits = await finish('a');
    const afterNobody = await running();
    await join(waiting('d', T0));
    await store.setTaskPaused('limited', true);
    const paused = await store.retryJob({
      jobId: 'b',
      owner: 'w-b',
      failedAttempt: 1,
      error: { type: 'Error', message: 'boom' },
      retryAt: T0 + MINUTE,
      now: T0 + SECOND,
    });
    const afterPaused = await running();
    await store.setTaskPaused('limited', false);
    // Drift counted more slots than the limit allows: a slot that comes back goes back
    await setRunningCount('limited', 4);
    const overLimit = await finish('c');

    expect(nobodyWaits.woken).toBeUndefined();
    expect(afterNobody).toBe(2);
    expect(paused.woken).toBeUndefined();
    expect(paused.job.status).toBe('retrying');
    expect(afterPaused).toBe(1);
    expect(overLimit.woken).toBeUndefined();
    expect(overLimit.job.status).toBe('success');
    expect(await running()).toBe(3);
    expect(ids([await head()])).toEqual(['d']);
  });

  it('lets a woken delivery that goes on as a later attempt (a reclaim of a takeover) claim or give back the entry it was woken with', async () => {
    await store.claimJob(limitedClaim('holder', 2));
    await store.claimJob(limitedClaim('x', 2));
    await join(waiting('a', T0));
    await join(waiting('b', T0 + 1));
    const a = woken((await finish('holder')).woken);
    const b = woken((await finish('x')).woken);
    const asLaterAttempt = (entry: WokenEntry) => ({ ...wokenClaim(entry, 2, T0 + 2 * SECOND), attempt: 2 });

    const claimed = await store.claimJob(asLaterAttempt(a));
    const givenBack = await store.releaseWoken({
      task: 'limited',
      position: b.position,
      copy: b.message,
      now: T0 + 2 * SECOND,
    });

    expect(a.message.attempt).toBe(1);
    expect(claimed).toMatchObject({ status: 'claimed', tookWokenSlot: true, job: { id: 'a', attempt: 2 } });
    expect(givenBack).toEqual({ status: 'released' });
    expect(await running()).toBe(1);
    expect(await store.waitingCount('limited')).toBe(0);
  });

  it('lets a woken job claim the slot it was handed, taking its entry out only when the claim succeeds', async () => {
    await store.claimJob(limitedClaim('a', 1));
    await join(waiting('b', T0));
    await join(waiting('c', T0));
    const b = woken((await finish('a')).woken);

    const claimed = await store.claimJob(wokenClaim(b, 1, T0 + 2 * SECOND));
    const afterClaim = await running();
    const duplicate = await store.claimJob(wokenClaim(b, 1, T0 + 2 * SECOND, 'another-copy'));
    const c = woken((await finish('b')).woken);
    await store.cancelJob('c', T0 + 3 * SECOND, T0 + MINUTE);
    const cancelled = await store.claimJob(wokenClaim(c, 1, T0 + 4 * SECOND));
    const stillWoken = await store.isWaiting('limited', c.position);
    const released = await store.releaseWoken({
      task: 'limited',
      position: c.position,
      copy: { attempt: 1 },
      now: T0 + 5 * SECOND,
    });

    expect(claimed).toMatchObject({
      status: 'claimed',
      tookWokenSlot: true,
      job: { id: 'b', holdsSlot: true },
    });
    expect(afterClaim).toBe(1);
    expect(await store.isWaiting('limited', b.position)).toBe(false);
    expect(duplicate.status).toBe('duplicate');
    expect(cancelled.status).toBe('cancelled');
    expect(stillWoken).toBe(true);
    expect(released).toEqual({ status: 'released' });
    expect(await running()).toBe(0);
    expect(await store.waitingCount('limited')).toBe(0);
  });

  it("keeps a rate-limited task's woken job to the rate: its claim with the handed slot waits for the next start", async () => {
    const rate: RateLimit = { max: 1, perSeconds: 10 };
    const interval = startIntervalMs(rate);
    const rateClaim = (claim: ClaimJobInput): ClaimJobInput => ({ ...claim, rateLimit: rate });
    await store.claimJob(rateClaim(limitedClaim('a', 1)));
    await join(waiting('b', T0));
    const b = woken((await finish('a')).woken);

    const early = await store.claimJob(rateClaim(wokenClaim(b, 1, T0 + interval - 1)));
    const stillWoken = await store.isWaiting('limited', b.position);
    const onTime = await store.claimJob(rateClaim(wokenClaim(b, 1, T0 + interval)));

    expect(early).toEqual({ status: 'no_slot', running: 1, nextStartAt: T0 + interval, wokenSlot: true });
    expect(stillWoken).toBe(true);
    expect(onTime).toMatchObject({ status: 'claimed', tookWokenSlot: true });
    expect(await store.isWaiting('limited', b.position)).toBe(false);
    expect(await store.taskSlots('limited')).toMatchObject({ running: 1, nextStartAt: T0 + 2 * interval });
  });

  it('refuses a job woken for a rate start alone before that start without a slot to keep', async () => {
    const rate: RateLimit = { max: 1, perSeconds: 10 };
    await store.claimJob({ ...limitedClaim('a', 2), rateLimit: rate });
    await join(waiting('b', T0));
    const [b] = await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'start' });

    const early = await store.claimJob({ ...wokenClaim(woken(b), 2, T0 + SECOND), rateLimit: rate });

    expect(early).toEqual({ status: 'no_slot', running: 1, nextStartAt: T0 + startIntervalMs(rate) });
    expect(await store.isWaiting('limited', woken(b).position)).toBe(true);
  });

  it('lists the woken entries overdue at a time; one whose message was sent again is overdue again only later', async () => {
    for (const id of ['a', 'b']) await join(waiting(id, T0));
    await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'none' });
    await store.wakeHeads({ task: 'limited', now: T0 + 5 * SECOND, count: 1, take: 'none' });
    const resentAt = T0 + WOKEN_RESEND_MS;

    const early = await store.overdueWoken('limited', resentAt - 1);
    const first = await store.overdueWoken('limited', resentAt);
    const both = await store.overdueWoken('limited', T0 + 5 * SECOND + WOKEN_RESEND_MS);
    const a = { task: 'limited', position: linePosition(waiting('a', T0)), wokenAt: T0 };
    const taken = await store.markWokenResent(a, resentAt);
    // The same call made again (its answer was lost): the resend it took is its own
    const takenAgain = await store.markWokenResent(a, resentAt);
    // Another worker that found it overdue at the same time: its resend was taken already
    const takenTwice = await store.markWokenResent(a, resentAt + 3);
    const gone = await store.markWokenResent({ ...a, position: linePosition(waiting('gone', T0)) }, resentAt);
    const afterResend = await store.overdueWoken('limited', resentAt + WOKEN_RESEND_MS - 1);
    const later = await store.overdueWoken('limited', resentAt + WOKEN_RESEND_MS);

    expect([taken, takenAgain, takenTwice, gone]).toEqual([true, true, false, false]);
    expect(ids(early)).toEqual([]);
    expect(ids(first)).toEqual(['a']);
    expect(ids(both)).toEqual(['a', 'b']);
    expect(ids(afterResend)).toEqual(['b']);
    expect(later.map((entry) => [entry.message.job.id, entry.wokenAt, entry.overdueAt])).toEqual([
      ['a', resentAt, resentAt + WOKEN_RESEND_MS],
      ['b', T0 + 5 * SECOND, T0 + 5 * SECOND + WOKEN_RESEND_MS],
    ]);
    expect(await store.waitingCount('limited')).toBe(2);
  });

  it('keeps a woken entry for the rate start its delivery waits for: overdue only after it, while it carries that copy', async () => {
    const [a, b] = [waiting('a', T0), waiting('b', T0)];
    for (const message of [a, b]) await join(message);
    await store.wakeHeads({ task: 'limited', now: T0, count: 2, take: 'none' });
    const start = T0 + 30 * SECOND;
    const postpone = (message: JobMessageBody, attempt = 1) =>
      store.postponeWoken({
        task: 'limited',
        position: linePosition(message),
        copy: { attempt },
        now: T0 + SECOND,
        until: start,
      });

    const kept = await postpone(a);
    // The same call made again (its answer was lost)
    const keptAgain = await postpone(a);
    // A delivery of another copy than the entry carries: the wake-up is not its own
    const otherCopy = await postpone(b, 2);
    const gone = await postpone(waiting('gone', T0));
    // Someone who found it overdue before the postponement: the resend is not theirs to take
    const staleResend = await store.markWokenResent(
      { task: 'limited', position: linePosition(a), wokenAt: T0 },
      T0 + WOKEN_RESEND_MS,
    );

    expect([kept, keptAgain, otherCopy, gone, staleResend]).toEqual([true, true, false, false, false]);
    expect(ids(await store.overdueWoken('limited', T0 + WOKEN_RESEND_MS))).toEqual(['b']);
    expect(ids(await store.overdueWoken('limited', start + WOKEN_RESEND_MS - 1))).toEqual(['b']);
    expect(ids(await store.overdueWoken('limited', start + WOKEN_RESEND_MS))).toEqual(['a', 'b']);
    expect(await store.waitingCount('limited')).toBe(2);
  });

  it('marks the entry of a slot handed to a job its ender carries on overdue sooner; once resent, as a sent one', async () => {
    await store.claimJob(limitedClaim('a', 2));
    await store.claimJob(limitedClaim('b', 2));
    for (const id of ['c', 'd', 'e']) await join(waiting(id, T0));
    const endedAt = T0 + SECOND;
    const carriedAt = endedAt + CARRIED_RESEND_MS;

    const finished = await store.finishJob({
      jobId: 'a',
      owner: 'w-a',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
      heldSlot: { task: 'limited', carriedOn: true },
    });
    const retried = await store.retryJob({
      jobId: 'b',
      owner: 'w-b',
      failedAttempt: 1,
      error: { type: 'Error', message: 'boom' },
      retryAt: T0 + MINUTE,
      now: endedAt,
      heldSlot: { task: 'limited', carriedOn: false },
    });
    const overdueCarried = await store.overdueWoken('limited', carriedAt);
    const released = await store.releaseWoken({
      task: 'limited',
      position: woken(retried.woken).position,
      copy: { attempt: 1 },
      now: endedAt,
      carriedOn: true,
    });
    const resent = await store.markWokenResent(woken(finished.woken), carriedAt);
    const overdueAfterResend = await store.overdueWoken('limited', carriedAt);

    expect(finished.woken).toMatchObject({ wokenAt: endedAt, overdueAt: carriedAt });
    expect(retried.woken).toMatchObject({ wokenAt: endedAt, overdueAt: endedAt + WOKEN_RESEND_MS });
    expect(ids(overdueCarried)).toEqual(['c']);
    expect(released).toMatchObject({ status: 'handed', woken: { wokenAt: endedAt, overdueAt: carriedAt } });
    expect(resent).toBe(true);
    expect(ids(overdueAfterResend)).toEqual(['e']);
    expect(await running()).toBe(2);
  });

  it('repairs a counter to count the woken entries holding a slot besides the running jobs', async () => {
    await store.claimJob(limitedClaim('a', 3));
    for (const id of ['b', 'c', 'd']) await join(waiting(id, T0));
    await wakeWithSlots(2, 3);
    await store.wakeHeads({ task: 'limited', now: T0, count: 1, take: 'none' });
    await setRunningCount('limited', 0);

    const corrections = await store.repairCounters(T0);

    expect(corrections).toEqual(new Map([['limited', { was: 0, now: 3 }]]));
    expect(await running()).toBe(3);
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
