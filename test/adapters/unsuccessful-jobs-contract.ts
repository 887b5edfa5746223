import { beforeEach, expect, it } from 'vitest';
import { ValidationError } from '../../lib/core/errors';
import type { ResultOutcome } from '../../lib/core/model/job';
import { failure, jobRequest, MINUTE, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

const HOUR = 60 * MINUTE;

/**
 * Listing the jobs of every task that ended unsuccessfully (`listJobs` with a status alone): what
 * `list_jobs --status error` and the dashboard's failures rely on.
 */
export function unsuccessfulJobsContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  /** Runs job `id` of `task` once, ending it as `outcome` at `finishedAt`. */
  async function endAs(id: string, task: string, outcome: ResultOutcome, finishedAt: number) {
    await store.claimJob({
      job: jobRequest(id, { task }),
      attempt: 1,
      owner: `w-${id}`,
      now: finishedAt - SECOND,
      leaseUntil: finishedAt + MINUTE,
    });
    await store.finishJob({
      jobId: id,
      owner: `w-${id}`,
      result: {
        outcome,
        ...(outcome === 'error' && { error: { type: 'Boom', message: `${id} failed` } }),
        startedAt: finishedAt - SECOND,
        finishedAt,
        attempt: 1,
      },
      expiresAt: finishedAt + 24 * HOUR,
    });
  }

  const ids = async (filter: Parameters<Store['listJobs']>[0], limit = 50, now = T0 + 10 * HOUR) =>
    (await store.listJobs(filter, { limit }, now)).items.map((job) => job.id);

  it('lists the jobs of every task that ended with a status, latest finish first', async () => {
    await endAs('a-err', 'alpha', 'error', T0 + HOUR);
    await endAs('b-err', 'beta', 'error', T0 + 3 * HOUR);
    await endAs('a-ok', 'alpha', 'success', T0 + 2 * HOUR);
    await endAs('b-gone', 'beta', 'abandoned', T0 + 2 * HOUR);
    await store.createJob({
      job: jobRequest('c-cancel', { task: 'gamma' }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });
    await store.cancelJob('c-cancel', T0 + 4 * HOUR, T0 + 24 * HOUR);

    expect(await ids({ status: 'error' })).toEqual(['b-err', 'a-err']);
    expect(await ids({ status: 'abandoned' })).toEqual(['b-gone']);
    expect(await ids({ status: 'cancelled' })).toEqual(['c-cancel']);
    expect(await ids({ status: 'missed_start_deadline' })).toEqual([]);
  });

  it('narrows to a finish time range, pages with a cursor and leaves out expired results', async () => {
    for (const hour of [1, 2, 3, 4, 5]) await endAs(`e${hour}`, 'alpha', 'error', T0 + hour * HOUR);

    const ranged = await ids({ status: 'error', finishedFrom: T0 + 2 * HOUR, finishedBefore: T0 + 5 * HOUR });
    const first = await store.listJobs({ status: 'error' }, { limit: 2 }, T0 + 10 * HOUR);
    const second = await store.listJobs(
      { status: 'error' },
      { limit: 2, ...(first.cursor !== undefined && { cursor: first.cursor }) },
      T0 + 10 * HOUR,
    );
    // e1's result expired 24 h after it ended, the others' not yet.
    const later = await ids({ status: 'error' }, 50, T0 + 25 * HOUR + SECOND);

    expect(ranged).toEqual(['e4', 'e3', 'e2']);
    expect(first.items.map((job) => job.id)).toEqual(['e5', 'e4']);
    expect(second.items.map((job) => job.id)).toEqual(['e3', 'e2']);
    expect(later).toEqual(['e5', 'e4', 'e3', 'e2']);
  });

  it('no longer lists a cancelled fire once it is claimed again', async () => {
    const fire = jobRequest('s@1', { origin: 'schedule', scheduleId: 's', fireTime: T0 });
    await store.claimJob({ job: fire, attempt: 1, owner: 'w1', now: T0, leaseUntil: T0 + MINUTE });
    await store.finishJob({
      jobId: 's@1',
      owner: 'w1',
      result: { outcome: 'cancelled', startedAt: null, finishedAt: T0, attempt: 1 },
      expiresAt: T0 + HOUR,
      reclaimable: true,
    });
    const before = await ids({ status: 'cancelled' }, 50, T0 + SECOND);

    await store.claimJob({
      job: fire,
      attempt: 1,
      owner: 'w2',
      now: T0 + SECOND,
      leaseUntil: T0 + MINUTE,
      reclaimCancelledFire: true,
    });

    expect(before).toEqual(['s@1']);
    expect(await ids({ status: 'cancelled' }, 50, T0 + 2 * SECOND)).toEqual([]);
  });

  it('refuses a status alone that is not an unsuccessful ending, a range with a task, and an empty range', async () => {
    const errors = [
      await failure(store.listJobs({ status: 'success' }, { limit: 5 }, T0)),
      await failure(store.listJobs({}, { limit: 5 }, T0)),
      await failure(store.listJobs({ task: 'alpha', finishedFrom: T0 }, { limit: 5 }, T0)),
      await failure(
        store.listJobs({ status: 'error', finishedFrom: T0, finishedBefore: T0 }, { limit: 5 }, T0),
      ),
      await failure(
        store.listJobs({ status: 'error', finishedFrom: T0 + 1, finishedBefore: T0 }, { limit: 5 }, T0),
      ),
    ];

    for (const error of errors) expect(error).toBeInstanceOf(ValidationError);
  });

  it('retries a job that failed for good once, however many calls race, and runs the new attempt once', async () => {
    await endAs('r', 'alpha', 'error', T0 + HOUR);
    const now = T0 + 2 * HOUR;
    const retry = (owner: string) =>
      store.retryEndedJob({ jobId: 'r', now, owner, leaseUntil: now + MINUTE });

    const outcomes = await Promise.all([retry('admin-1'), retry('admin-2'), retry('admin-3')]);
    const retried = outcomes.filter((outcome) => outcome?.status === 'retried');
    const attempt2 = {
      job: jobRequest('r', { task: 'alpha', attemptBase: 1 }),
      attempt: 2,
      now,
      leaseUntil: now + MINUTE,
    };
    const claims = await Promise.all(
      ['w1', 'w2', 'w3'].map((owner) => store.claimJob({ ...attempt2, owner })),
    );
    const stale = await store.claimJob({ ...attempt2, attempt: 1, owner: 'late' });

    expect(retried).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome?.status === 'not_retryable')).toHaveLength(2);
    expect(retried[0]?.job).toMatchObject({ status: 'retrying', attempt: 1, attemptBase: 1, result: null });
    expect(claims.filter((claim) => claim.status === 'claimed')).toHaveLength(1);
    expect(stale.status).toBe('duplicate');
    expect(await ids({ status: 'error' }, 50, now)).toEqual([]);
  });

  it('keeps the earlier outcomes in history through the new run, newest last', async () => {
    await endAs('h', 'alpha', 'abandoned', T0 + HOUR);
    const now = T0 + 2 * HOUR;
    await store.retryEndedJob({ jobId: 'h', now, owner: 'admin', leaseUntil: now + MINUTE });
    const owner = 'w';
    await store.claimJob({
      job: jobRequest('h', { task: 'alpha' }),
      attempt: 2,
      owner,
      now,
      leaseUntil: now + MINUTE,
    });
    await store.finishJob({
      jobId: 'h',
      owner,
      result: {
        outcome: 'error',
        error: { type: 'E', message: 'x'.repeat(5000), stack: 'E\n at y' },
        startedAt: now,
        finishedAt: now + SECOND,
        attempt: 2,
      },
      expiresAt: now + HOUR,
    });
    await store.retryEndedJob({
      jobId: 'h',
      now: now + MINUTE,
      owner: 'admin',
      leaseUntil: now + 2 * MINUTE,
    });

    const job = await store.getJob('h', now + MINUTE);

    expect(job?.attemptBase).toBe(2);
    expect(job?.history?.map((entry) => [entry.outcome, entry.attempt])).toEqual([
      ['abandoned', 1],
      ['error', 2],
    ]);
    expect(job?.history?.[1]?.error).toEqual({ type: 'E', message: 'x'.repeat(1000) });
  });

  it('does not retry a job that succeeded, and knows no unknown job', async () => {
    await endAs('fine', 'alpha', 'success', T0 + HOUR);
    const input = { now: T0 + 2 * HOUR, owner: 'admin', leaseUntil: T0 + 3 * HOUR };

    const fine = await store.retryEndedJob({ ...input, jobId: 'fine' });

    expect(fine).toMatchObject({ status: 'not_retryable', job: { status: 'success' } });
    expect(await store.retryEndedJob({ ...input, jobId: 'nobody' })).toBeUndefined();
    expect((await store.getJob('fine', input.now))?.history).toBeUndefined();
  });
}
