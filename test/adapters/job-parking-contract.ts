import { beforeEach, describe, expect, it } from 'vitest';
import type { CreateJobInput } from '../../lib/core/ports/job-store';
import { jobRequest, MINUTE, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/** `parkUnclaimedJob`: what the admin API does with a job whose send failed or may have failed. */
export function jobParkingContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const create = (id: string, options: Partial<CreateJobInput> = {}) =>
    store.createJob({
      job: jobRequest(id, { runAt: T0 + 10 * SECOND }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
      ...options,
    });
  const claim = (id: string) =>
    store.claimJob({
      job: jobRequest(id, { runAt: T0 + 10 * SECOND }),
      attempt: 1,
      owner: 'worker',
      now: T0 + 10 * SECOND,
      leaseUntil: T0 + MINUTE,
    });
  const dueIds = async () =>
    (await store.acquireDueJobs('tick', T0 + 10 * SECOND, T0 + 20 * SECOND, MINUTE, 10)).map((job) => job.id);

  it('parks a queued job nobody claimed, at its run time, for the tick to send', async () => {
    await create('unsent');

    const parked = await store.parkUnclaimedJob('unsent');
    const early = await store.acquireDueJobs('tick', T0, T0 + 5 * SECOND, MINUTE, 10);

    expect(parked).toMatchObject({ id: 'unsent', status: 'queued', attempt: 0, runAt: T0 + 10 * SECOND });
    expect(early).toEqual([]);
    expect(await dueIds()).toEqual(['unsent']);
  });

  it('leaves a job alone once a delivery claimed it: running, finished, retrying or cancelled', async () => {
    for (const id of ['running', 'finished', 'retrying', 'cancelled']) await create(id);
    await claim('running');
    await claim('finished');
    await store.finishJob({
      jobId: 'finished',
      owner: 'worker',
      result: { outcome: 'success', startedAt: T0, finishedAt: T0 + SECOND, attempt: 1 },
      expiresAt: T0 + 60 * MINUTE,
    });
    await claim('retrying');
    await store.retryJob({
      jobId: 'retrying',
      owner: 'worker',
      failedAttempt: 1,
      error: { type: 'Error', message: 'boom' },
      retryAt: T0 + 12 * SECOND,
      now: T0 + 11 * SECOND,
    });
    await store.cancelJob('cancelled', T0, T0 + 60 * MINUTE);
    const before = await Promise.all(
      ['running', 'finished', 'retrying', 'cancelled'].map((id) => store.getJob(id, T0)),
    );

    const parked = await Promise.all(
      ['running', 'finished', 'retrying', 'cancelled'].map((id) => store.parkUnclaimedJob(id)),
    );

    expect(parked).toEqual([undefined, undefined, undefined, undefined]);
    const after = await Promise.all(
      ['running', 'finished', 'retrying', 'cancelled'].map((id) => store.getJob(id, T0)),
    );
    expect(after).toEqual(before);
    expect(await dueIds()).toEqual([]);
  });

  describe('a job added for now, in case its send is lost (resendIfUnclaimedAt)', () => {
    const RESEND_AT = T0 + 10 * MINUTE;
    const createWithNet = (id: string) =>
      create(id, { conflictPolicy: 'do_nothing', resendIfUnclaimedAt: RESEND_AT });
    const dueAt = async (at: number) =>
      (await store.acquireDueJobs('tick', at, at, MINUTE, 10)).map((job) => [job.id, job.attempt]);

    it('waits for the tick from then on while nobody claims it, and is sent as first added', async () => {
      const { job } = await createWithNet('lost');

      const early = await dueAt(RESEND_AT - 1);
      const due = await store.acquireDueJobs('tick', RESEND_AT, RESEND_AT, MINUTE, 10);

      expect(early).toEqual([]);
      expect(due).toEqual([
        expect.objectContaining({ id: 'lost', status: 'queued', attempt: 0, createToken: job.createToken }),
      ]);
    });

    it('leaves the index when a delivery claims it or it is cancelled, and is parked earlier after a failed send', async () => {
      for (const id of ['claimed', 'cancelled', 'refused']) await createWithNet(id);
      await claim('claimed');
      await store.cancelJob('cancelled', T0, T0 + 60 * MINUTE);

      await store.parkUnclaimedJob('refused');

      expect(await dueIds()).toEqual(['refused']);
      expect(await dueAt(RESEND_AT + MINUTE)).toEqual([['refused', 0]]);
    });

    it('keeps the net when the same job is added again and kept', async () => {
      await createWithNet('twice');
      const again = await createWithNet('twice');

      expect(again.status).toBe('kept');
      expect(await dueAt(RESEND_AT)).toEqual([['twice', 0]]);
    });
  });

  it('creates nothing for an unknown job', async () => {
    expect(await store.parkUnclaimedJob('absent')).toBeUndefined();
    expect(await store.getJob('absent', T0)).toBeUndefined();
  });
}
