import { beforeEach, expect, it } from 'vitest';
import { ConflictingIdError, LeaseLostError, ValidationError } from '../../lib/core/errors';
import { LIMITS } from '../../lib/core/limits';
import type { JobResult } from '../../lib/core/model/job';
import { parksBeyondQueueDelay } from '../../lib/core/ports/job-queue';
import {
  failure,
  jobRequest,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  SUCCESS,
  T0,
} from './store-fixtures';

/** A claim of attempt `attempt` of `id` by `owner` (at T0 unless `now`), with a task limit when given. */
export const claim = (
  id: string,
  attempt: number,
  owner: string,
  extra: { now?: number; limit?: number } = {},
) => ({
  job: jobRequest(id),
  attempt,
  owner,
  now: extra.now ?? T0,
  leaseUntil: (extra.now ?? T0) + MINUTE,
  ...(extra.limit === undefined ? {} : { concurrencyLimit: extra.limit }),
});

const success = (attempt: number, returnValue: JobResult['returnValue'] = { ok: true }): JobResult => ({
  outcome: 'success',
  returnValue,
  startedAt: T0,
  finishedAt: T0 + SECOND,
  attempt,
});

export function jobContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  it('claims a job once: a second delivery of the same attempt is a duplicate', async () => {
    const first = await store.claimJob(claim('j', 1, 'w1'));
    const second = await store.claimJob(claim('j', 1, 'w2'));

    expect(first).toMatchObject({
      status: 'claimed',
      job: {
        id: 'j',
        status: 'running',
        attempt: 1,
        leaseOwner: 'w1',
        leaseUntil: T0 + MINUTE,
        startedAt: T0,
        holdsSlot: false,
      },
    });
    expect(second).toMatchObject({ status: 'duplicate', job: { leaseOwner: 'w1' } });
  });

  it('finishes a job with its result and expiry; another owner or a different second result loses', async () => {
    await store.claimJob(claim('j', 1, 'w1'));
    const later = { ...success(1), finishedAt: T0 + 5 * SECOND };

    const stranger = await failure(
      store.finishJob({ jobId: 'j', owner: 'w2', result: success(1), expiresAt: T0 + MINUTE }),
    );
    const { job: finished } = await store.finishJob({
      jobId: 'j',
      owner: 'w1',
      result: success(1, null),
      expiresAt: T0 + MINUTE,
    });
    const { job: repeated } = await store.finishJob({
      jobId: 'j',
      owner: 'w1',
      result: success(1, null),
      expiresAt: T0 + MINUTE,
    });
    const different = await failure(
      store.finishJob({ jobId: 'j', owner: 'w1', result: later, expiresAt: T0 + MINUTE }),
    );

    expect(stranger).toBeInstanceOf(LeaseLostError);
    expect(finished).toMatchObject({
      status: 'success',
      leaseOwner: null,
      leaseUntil: null,
      finishedAt: T0 + SECOND,
      expiresAt: T0 + MINUTE,
    });
    expect(finished.result).toEqual(success(1, null));
    expect(repeated).toEqual(finished);
    expect(different).toBeInstanceOf(LeaseLostError);
    expect(await store.getJob('j', T0 + 2 * SECOND)).toEqual(finished);
  });

  it('hides expired results from getJob and listJobs', async () => {
    for (const id of ['short', 'long']) {
      await store.claimJob(claim(id, 1, 'w'));
      await store.finishJob({
        jobId: id,
        owner: 'w',
        result: success(1),
        expiresAt: T0 + (id === 'short' ? 10 : 100) * SECOND,
      });
    }

    const before = await store.listJobs({ task: 'send-report' }, { limit: 10 }, T0 + 9 * SECOND);
    const after = await store.listJobs({ task: 'send-report' }, { limit: 10 }, T0 + 10 * SECOND);

    expect(before.items.map((j) => j.id).sort()).toEqual(['long', 'short']);
    expect(after.items.map((j) => j.id)).toEqual(['long']);
    expect(await store.getJob('short', T0 + 10 * SECOND)).toBeUndefined();
    expect(await store.getJob('long', T0 + 10 * SECOND)).toBeDefined();
  });

  it('lists jobs by schedule, task and status, latest first, each exactly once across pages', async () => {
    for (const n of range(23)) {
      const job = jobRequest(`j-${n}`, {
        task: n % 2 ? 'a' : 'b',
        scheduleId: n % 3 ? 's1' : 's2',
        runAt: T0 + n * SECOND,
      });
      await store.claimJob({ job, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
      if (n % 4 === 0)
        await store.finishJob({ jobId: job.id, owner: 'w', result: success(1), expiresAt: T0 + MINUTE });
    }
    const collect = async (filter: Parameters<Store['listJobs']>[0]) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listJobs(filter, { limit: 3, cursor }, T0);
        expect(page.items.length).toBeLessThanOrEqual(3);
        ids.push(...page.items.map((job) => job.id));
        cursor = page.cursor;
      } while (cursor);
      return ids;
    };
    const expected = (keep: (n: number) => boolean) =>
      range(23)
        .filter(keep)
        .reverse()
        .map((n) => `j-${n}`);

    expect(await collect({ scheduleId: 's1' })).toEqual(expected((n) => n % 3 !== 0));
    expect(await collect({ task: 'a' })).toEqual(expected((n) => n % 2 === 1));
    expect(await collect({ task: 'b', status: 'success' })).toEqual(
      expected((n) => n % 2 === 0 && n % 4 === 0),
    );
    expect(await collect({ scheduleId: 's2', task: 'a', status: 'running' })).toEqual(
      expected((n) => n % 3 === 0 && n % 2 === 1 && n % 4 !== 0),
    );
    await expect(store.listJobs({ status: 'running' }, { limit: 3 }, T0)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('retries a failed attempt: the next attempt claims, a late duplicate of the old attempt loses', async () => {
    await store.claimJob(claim('j', 1, 'w1'));
    const error = { type: 'Error', message: 'boom' };

    const { job: retrying } = await store.retryJob({
      jobId: 'j',
      owner: 'w1',
      failedAttempt: 1,
      error,
      retryAt: T0 + 10 * SECOND,
      now: T0 + SECOND,
    });
    const oldAttempt = await store.claimJob(claim('j', 1, 'w2'));
    const nextAttempt = await store.claimJob(claim('j', 2, 'w3', { now: T0 + 10 * SECOND }));
    const duplicateNext = await store.claimJob(claim('j', 2, 'w4', { now: T0 + 10 * SECOND }));

    expect(retrying).toMatchObject({
      status: 'retrying',
      attempt: 1,
      runAt: T0 + 10 * SECOND,
      leaseOwner: null,
      result: { outcome: 'error', error, attempt: 1 },
    });
    expect(oldAttempt.status).toBe('duplicate');
    expect(nextAttempt).toMatchObject({
      status: 'claimed',
      job: { attempt: 2, leaseOwner: 'w3', result: null, runAt: T0 + 10 * SECOND },
    });
    expect(duplicateNext.status).toBe('duplicate');
  });

  it('parks a far-away retry in the due index and hands it to exactly one tick', async () => {
    await store.claimJob(claim('j', 1, 'w'));
    await store.retryJob({
      jobId: 'j',
      owner: 'w',
      failedAttempt: 1,
      error: { type: 'E', message: 'm' },
      retryAt: T0 + 60 * MINUTE,
      now: T0,
    });

    const early = await store.acquireDueJobs('tick-1', T0, T0 + 30 * MINUTE, MINUTE, 10);
    const due = await store.acquireDueJobs('tick-2', T0 + 59 * MINUTE, T0 + 61 * MINUTE, MINUTE, 10);
    const raced = await store.acquireDueJobs('tick-3', T0 + 59 * MINUTE, T0 + 61 * MINUTE, MINUTE, 10);
    const wrongOwner = await failure(store.markJobSent('j', 'tick-3'));
    await store.markJobSent('j', 'tick-2');
    const afterSent = await store.acquireDueJobs('tick-4', T0 + 70 * MINUTE, T0 + 90 * MINUTE, MINUTE, 10);

    expect(early).toEqual([]);
    expect(due.map((job) => job.id)).toEqual(['j']);
    expect(raced).toEqual([]);
    expect(wrongOwner).toBeInstanceOf(LeaseLostError);
    expect(afterSent).toEqual([]);
  });

  it('parks a retry exactly when the core rule says it lies beyond the queue’s longest delay', async () => {
    const retryAt = {
      near: T0 + LIMITS.maxQueueDelaySeconds * SECOND,
      far: T0 + LIMITS.maxQueueDelaySeconds * SECOND + 1,
    };
    for (const id of ['near', 'far'] as const) {
      await store.claimJob(claim(id, 1, 'w'));
      await store.retryJob({
        jobId: id,
        owner: 'w',
        failedAttempt: 1,
        error: { type: 'E', message: 'm' },
        retryAt: retryAt[id],
        now: T0,
      });
    }

    const due = await store.acquireDueJobs('tick', T0 + 20 * MINUTE, T0 + 30 * MINUTE, MINUTE, 10);

    expect(parksBeyondQueueDelay(retryAt.near, T0)).toBe(false);
    expect(parksBeyondQueueDelay(retryAt.far, T0)).toBe(true);
    expect(due.map((job) => job.id)).toEqual(['far']);
  });

  it('creates admin jobs with conflict policies, parked until due when asked', async () => {
    const add = (policy: 'exception' | 'do_nothing' | 'replace', payload: number, park = false) =>
      store.createJob({
        job: jobRequest('adhoc', { payload, runAt: T0 + 30 * MINUTE }),
        conflictPolicy: policy,
        now: T0,
        parkUntilDue: park,
      });

    const added = await add('exception', 1, true);
    const duplicate = await failure(add('exception', 2));
    const kept = await add('do_nothing', 3);
    const parked = await store.acquireDueJobs('tick', T0 + 29 * MINUTE, T0 + 31 * MINUTE, MINUTE, 10);
    const replaced = await add('replace', 4);

    expect(added).toMatchObject({ status: 'added', job: { status: 'queued', attempt: 0, payload: 1 } });
    expect(duplicate).toBeInstanceOf(ConflictingIdError);
    expect(kept).toMatchObject({ status: 'kept', job: { payload: 1 } });
    expect(parked.map((job) => job.id)).toEqual(['adhoc']);
    expect(replaced).toMatchObject({ status: 'replaced', job: { payload: 4 } });
  });

  it('refuses an id whose result is still visible, up to the millisecond its expiry passes', async () => {
    const finishAt = async (id: string) => {
      await store.createJob({
        job: jobRequest(id),
        conflictPolicy: 'exception',
        now: T0,
        parkUntilDue: false,
      });
      await store.claimJob({ job: jobRequest(id), attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
      await store.finishJob({ jobId: id, owner: 'w', result: SUCCESS, expiresAt: T0 + 10 * SECOND });
    };
    await finishAt('x');
    const add = (now: number) =>
      store.createJob({
        job: jobRequest('x', { payload: 2 }),
        conflictPolicy: 'exception',
        now,
        parkUntilDue: false,
      });

    // 9.5 s: still visible, so the id is taken; at 10 s the result has expired and the id is free again
    expect(await store.getJob('x', T0 + 9_500)).toMatchObject({ status: 'success' });
    expect(await failure(add(T0 + 9_500))).toBeInstanceOf(ConflictingIdError);
    expect(await store.getJob('x', T0 + 10 * SECOND)).toBeUndefined();
    expect(await add(T0 + 10 * SECOND)).toMatchObject({ status: 'added', job: { payload: 2 } });
  });

  it('gives a slot back when a limited job finishes, and refuses claims past the limit', async () => {
    const first = await store.claimJob(claim('a', 1, 'w', { limit: 1 }));
    const blocked = await store.claimJob(claim('b', 1, 'w', { limit: 1 }));
    const countsWhileRunning = await store.runningCounts();
    const blockedJob = await store.getJob('b', T0);
    await store.finishJob({ jobId: 'a', owner: 'w', result: success(1), expiresAt: T0 + MINUTE });
    const afterFinish = await store.claimJob(claim('b', 1, 'w', { limit: 1 }));

    expect(first).toMatchObject({ status: 'claimed', job: { holdsSlot: true } });
    expect(blocked).toEqual({ status: 'no_slot', running: 1 });
    expect(blockedJob).toBeUndefined();
    expect(countsWhileRunning.get('send-report')).toBe(1);
    expect(afterFinish.status).toBe('claimed');
  });

  it('finds expired job leases and lets the expired owner abandon them, returning their slots', async () => {
    for (const id of ['x', 'y'])
      await store.claimJob({ ...claim(id, 1, `w-${id}`, { limit: 2 }), leaseUntil: T0 + SECOND });
    await store.claimJob(claim('fresh', 1, 'w-fresh'));

    const expired = await store.findExpiredJobLeases(T0 + 2 * SECOND, 10);
    for (const job of expired) {
      await store.finishJob({
        jobId: job.id,
        owner: job.leaseOwner ?? '',
        result: {
          outcome: 'abandoned',
          startedAt: job.startedAt,
          finishedAt: T0 + 2 * SECOND,
          attempt: job.attempt,
        },
        expiresAt: T0 + MINUTE,
      });
    }

    expect(expired.map((job) => job.id).sort()).toEqual(['x', 'y']);
    expect((await store.runningCounts()).get('send-report')).toBe(0);
    expect(await store.findExpiredJobLeases(T0 + 2 * SECOND, 10)).toEqual([]);
    expect((await store.getJob('x', T0 + 3 * SECOND))?.status).toBe('abandoned');
  });

  it('lets a later attempt take over a slot-less run whose lease ended, never a live one nor a slot holder', async () => {
    await store.claimJob(claim('free', 1, 'dead'));
    await store.claimJob(claim('held', 1, 'dead', { limit: 5 }));
    const after = T0 + MINUTE + SECOND;

    const whileLive = await store.claimJob(claim('free', 2, 'redelivery', { now: T0 + SECOND }));
    const sameAttempt = await store.claimJob(claim('free', 1, 'redelivery', { now: after }));
    const takeover = await store.claimJob(claim('free', 2, 'redelivery', { now: after }));
    const slotHolder = await store.claimJob(claim('held', 2, 'redelivery', { now: after, limit: 5 }));
    const expired = await store.findExpiredJobLeases(after, 10);

    expect(whileLive).toMatchObject({ status: 'duplicate', job: { status: 'running', leaseOwner: 'dead' } });
    expect(sameAttempt.status).toBe('duplicate');
    expect(takeover).toMatchObject({ status: 'claimed', job: { attempt: 2, leaseOwner: 'redelivery' } });
    expect(slotHolder).toMatchObject({ status: 'duplicate', job: { holdsSlot: true } });
    expect(expired.map((job) => job.id)).toEqual(['held']);
    expect((await store.runningCounts()).get('send-report')).toBe(1);
    await expect(
      store.finishJob({ jobId: 'free', owner: 'dead', result: success(1), expiresAt: T0 + 2 * MINUTE }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });
}
