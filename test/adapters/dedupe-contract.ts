import { beforeEach, expect, it } from 'vitest';
import { ConflictingIdError } from '../../lib/core/errors';
import type { JobRequest } from '../../lib/core/ports/job-store';
import { DEDUPE_RECORD_RETENTION_MS } from '../../lib/core/ports/job-store';
import { failure, jobRequest, MINUTE, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

const fire: JobRequest = jobRequest('nightly@1767225600000', {
  origin: 'schedule',
  scheduleId: 'nightly',
  fireTime: T0,
});

/**
 * A job's id stays claimed as long as any copy of its messages can arrive, even when its result expired
 * long before (result TTLs can be a second; the queues keep messages for 14 days).
 */
export function dedupeContract(fixture: () => StoreFixture): void {
  let store: Store;
  let expireRecords: StoreFixture['expireRecords'];
  beforeEach(() => {
    ({ store, expireRecords } = fixture());
  });

  const deliver = (request: JobRequest, now: number, attempt = 1) =>
    store.claimJob({ job: request, attempt, owner: `w-${now}`, now, leaseUntil: now + MINUTE });

  const runOnce = async (request: JobRequest, resultTtlMs: number) => {
    await deliver(request, T0);
    await store.finishJob({
      jobId: request.id,
      owner: `w-${T0}`,
      result: { outcome: 'success', returnValue: 1, startedAt: T0, finishedAt: T0 + SECOND, attempt: 1 },
      expiresAt: T0 + SECOND + resultTtlMs,
    });
  };

  it('treats a redelivered fire whose result expired as a duplicate until the dedupe record ends', async () => {
    await runOnce(fire, SECOND);
    const later = T0 + 3 * SECOND;
    await expireRecords(later);

    const hidden = await store.getJob(fire.id, later);
    const listed = await store.listJobs({ scheduleId: 'nightly' }, { limit: 10 }, later);
    const redelivered = await deliver(fire, later);
    const retryCopy = await deliver(fire, later, 2);
    const lastDay = T0 + SECOND + DEDUPE_RECORD_RETENTION_MS - SECOND;
    await expireRecords(lastDay);
    const onLastDay = await deliver(fire, lastDay);
    const afterwards = T0 + SECOND + DEDUPE_RECORD_RETENTION_MS;
    await expireRecords(afterwards);
    const fresh = await deliver(fire, afterwards);

    expect(hidden).toBeUndefined();
    expect(listed.items).toEqual([]);
    expect(redelivered.status).toBe('duplicate');
    expect(retryCopy.status).toBe('duplicate');
    expect(onLastDay.status).toBe('duplicate');
    expect(fresh.status).toBe('claimed');
  });

  it('reads the record of a job whose result expired, for whether it ended, until the dedupe record ends', async () => {
    await runOnce(fire, SECOND);
    const later = T0 + 3 * SECOND;
    await expireRecords(later);
    const afterResult = await store.getJobRecord(fire.id);
    const afterwards = T0 + SECOND + DEDUPE_RECORD_RETENTION_MS;
    await expireRecords(afterwards);

    expect(await store.getJob(fire.id, later)).toBeUndefined();
    expect(afterResult).toMatchObject({ id: fire.id, status: 'success', attempt: 1 });
    expect(await store.getJobRecord(fire.id)).toBeUndefined();
    expect(await store.getJobRecord('never-added')).toBeUndefined();
  });

  it('keeps the dedupe record for the result TTL when that is longer', async () => {
    const longTtl = DEDUPE_RECORD_RETENTION_MS + 10 * 24 * 60 * MINUTE;
    await runOnce(fire, longTtl);
    const beyondRetention = T0 + SECOND + DEDUPE_RECORD_RETENTION_MS + MINUTE;
    await expireRecords(beyondRetention);

    expect((await store.getJob(fire.id, beyondRetention))?.status).toBe('success');
    expect((await deliver(fire, beyondRetention)).status).toBe('duplicate');
  });

  it('keeps a cancelled fire cancelled for a delivery after the cancellation record expired', async () => {
    await store.cancelJob(fire.id, T0, T0 + SECOND, fire);
    const later = T0 + 15 * MINUTE;
    await expireRecords(later);

    const delivered = await deliver(fire, later);

    expect(delivered.status).toBe('cancelled');
    expect(await store.getJob(fire.id, later)).toBeUndefined();
  });

  it('adds a new job for an ad-hoc id whose result expired, but never reuses a fire id before its record ends', async () => {
    const adhoc = jobRequest('report-42', { payload: { run: 1 } });
    await runOnce(adhoc, SECOND);
    await runOnce(fire, SECOND);
    const later = T0 + 3 * SECOND;
    await expireRecords(later);
    const readd = (request: JobRequest) =>
      store.createJob({
        job: { ...request, payload: { run: 2 } },
        conflictPolicy: 'exception',
        now: later,
        parkUntilDue: false,
      });

    const added = await readd(adhoc);
    const fireAgain = await failure(readd(fire));

    expect(added).toMatchObject({
      status: 'added',
      job: { status: 'queued', attempt: 0, payload: { run: 2 } },
    });
    expect((await store.getJob(adhoc.id, later))?.payload).toEqual({ run: 2 });
    expect(fireAgain).toBeInstanceOf(ConflictingIdError);
    expect(await store.getJob(fire.id, later)).toBeUndefined();
  });
}
