import { beforeEach, expect, it } from 'vitest';
import { claim } from './job-contract';
import { jobRequest, MINUTE, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/**
 * Cancelled jobs: `cancelJob` before a start is final; a schedule check's cancellation is reclaimable by
 * a delivery that checks again (ADR 0002 §3), which the claim reports, until `cancelJob` makes it final.
 */
export function jobCancellationContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  it('cancels a job that has not started, so that its claim comes back cancelled', async () => {
    const cancelled = await store.cancelJob('in-queue', T0, T0 + MINUTE, jobRequest('in-queue'));
    const claimAfterCancel = await store.claimJob(claim('in-queue', 1, 'w'));
    await store.claimJob(claim('started', 1, 'w'));
    const tooLate = await store.cancelJob('started', T0, T0 + MINUTE);

    expect(cancelled).toMatchObject({
      id: 'in-queue',
      status: 'cancelled',
      task: 'send-report',
      result: { outcome: 'cancelled' },
    });
    expect(claimAfterCancel.status).toBe('cancelled');
    expect(tooLate).toBeUndefined();
  });

  /** Claims attempt 1 of `id` and finishes it as a schedule check does when the schedule changed. */
  const cancelledByCheck = async (id: string, limit?: number) => {
    await store.claimJob(claim(id, 1, 'checker', limit === undefined ? {} : { limit }));
    return cancelAsCheck(id, 'checker');
  };

  /** Finishes the run `owner` claimed as a schedule check does when the schedule changed. */
  const cancelAsCheck = async (id: string, owner: string) => {
    const { job } = await store.finishJob({
      jobId: id,
      owner,
      result: {
        outcome: 'cancelled',
        error: { type: 'ScheduleChanged', message: 'changed' },
        startedAt: null,
        finishedAt: T0,
        attempt: 1,
      },
      expiresAt: T0 + MINUTE,
      reclaimable: true,
    });
    return job;
  };

  it('lets a re-checking fire delivery claim a job a schedule check cancelled, until cancelJob makes it final', async () => {
    const first = await cancelledByCheck('fire', 2);
    await cancelledByCheck('user-cancelled');
    const userCancel = await store.cancelJob('user-cancelled', T0 + 1, T0 + MINUTE);

    const plainClaim = await store.claimJob(claim('fire', 2, 'w'));
    const reclaim = await store.claimJob({
      ...claim('fire', 1, 'rechecker', { limit: 2 }),
      reclaimCancelledFire: true,
    });
    const secondReclaim = await store.claimJob({ ...claim('fire', 1, 'late'), reclaimCancelledFire: true });
    const afterUserCancel = await store.claimJob({
      ...claim('user-cancelled', 1, 'w'),
      reclaimCancelledFire: true,
    });

    expect(first).toMatchObject({
      status: 'cancelled',
      startedAt: null,
      result: { error: { type: 'ScheduleChanged' } },
    });
    expect(plainClaim.status).toBe('cancelled');
    expect(reclaim).toMatchObject({
      status: 'claimed',
      job: {
        status: 'running',
        attempt: 1,
        leaseOwner: 'rechecker',
        holdsSlot: true,
        result: null,
        expiresAt: null,
      },
    });
    expect(secondReclaim).toMatchObject({ status: 'duplicate', job: { leaseOwner: 'rechecker' } });
    expect(userCancel).toMatchObject({ status: 'cancelled', result: { outcome: 'cancelled' } });
    expect(userCancel?.result?.error).toBeUndefined();
    expect(afterUserCancel.status).toBe('cancelled');
    expect((await store.runningCounts()).get('send-report')).toBe(1);
  });

  it('reports a claim that took back a cancellation of a schedule check, and no other claim', async () => {
    // Prepare: `fire` and `limited` cancelled by a check; `queued` created; `fresh` has no item
    await cancelledByCheck('fire');
    await cancelledByCheck('limited', 2);
    await store.createJob({
      job: jobRequest('queued'),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });

    // Act
    const reclaim = await store.claimJob({ ...claim('fire', 1, 'again'), reclaimCancelledFire: true });
    const limitedReclaim = await store.claimJob({
      ...claim('limited', 1, 'again', { limit: 2 }),
      reclaimCancelledFire: true,
    });
    const fresh = await store.claimJob({ ...claim('fresh', 1, 'w'), reclaimCancelledFire: true });
    const queued = await store.claimJob({ ...claim('queued', 1, 'w'), reclaimCancelledFire: true });

    // Assess
    expect(reclaim).toMatchObject({ status: 'claimed', reclaimed: true, job: { leaseOwner: 'again' } });
    expect(limitedReclaim).toMatchObject({ status: 'claimed', reclaimed: true, job: { holdsSlot: true } });
    expect(fresh).toMatchObject({ status: 'claimed' });
    expect(fresh).not.toHaveProperty('reclaimed');
    expect(queued).toMatchObject({ status: 'claimed' });
    expect(queued).not.toHaveProperty('reclaimed');
  });

  it("keeps a checked claim's check (its revision, whether it failed, its read's start as `started_at`); a claim without a check keeps the revision and clears the failure", async () => {
    // Prepare: the fire's check failed before its first claim; a newer copy's check passes before its reclaim
    const v1 = { createdAt: T0, version: 1, firesFrom: T0 };
    const v2 = { createdAt: T0, version: 2, firesFrom: T0 + SECOND };
    const reclaimedAt = T0 + 5 * SECOND;
    const newer = { ...jobRequest('fire'), payload: { revision: 2 } };

    // Act: the failed check's claim (cancelled), the reclaim whose worker vanishes, and a takeover as attempt 2
    const failed = await store.claimJob({
      ...claim('fire', 1, 'checker'),
      reclaimCancelledFire: true,
      check: { revision: v1, failed: true, startedAt: T0 - 40 },
    });
    await cancelAsCheck('fire', 'checker');
    const reclaim = await store.claimJob({
      ...claim('fire', 1, 'rechecker', { now: reclaimedAt }),
      job: newer,
      reclaimCancelledFire: true,
      check: { revision: v2, failed: false, startedAt: reclaimedAt - 30 },
    });
    const failedAgain = await store.claimJob({
      ...claim('fire', 2, 'failer', { now: reclaimedAt + 2 * MINUTE }),
      job: newer,
      check: { revision: v2, failed: true, startedAt: reclaimedAt + 2 * MINUTE - 20 },
    });
    const takeover = await store.claimJob({
      ...claim('fire', 3, 'taker', { now: reclaimedAt + 4 * MINUTE }),
      job: newer,
    });

    // Assess
    expect(failed).toMatchObject({
      status: 'claimed',
      job: { claimedRevision: v1, checkFailed: true, startedAt: T0 - 40 },
    });
    expect(reclaim).toMatchObject({
      status: 'claimed',
      reclaimed: true,
      job: { claimedRevision: v2, payload: { revision: 2 }, startedAt: reclaimedAt - 30 },
    });
    expect(reclaim.status === 'claimed' && reclaim.job.checkFailed).toBeFalsy();
    expect(failedAgain).toMatchObject({ status: 'claimed', job: { attempt: 2, checkFailed: true } });
    expect(takeover).toMatchObject({
      status: 'claimed',
      job: { attempt: 3, claimedRevision: v2, startedAt: reclaimedAt + 4 * MINUTE },
    });
    expect(takeover.status === 'claimed' && takeover.job.checkFailed).toBeFalsy();
  });

  it('never lets a reclaim start an attempt again: a cancelled takeover is reclaimed only as its own attempt', async () => {
    // Prepare: attempt 1 claimed (its handler may have started); attempt 2 takes it over and its check cancels
    await store.claimJob(claim('fire', 1, 'vanished'));
    await store.claimJob(claim('fire', 2, 'takeover', { now: T0 + MINUTE + 1 }));
    await store.finishJob({
      jobId: 'fire',
      owner: 'takeover',
      result: {
        outcome: 'cancelled',
        error: { type: 'ScheduleRemoved', message: 'removed' },
        startedAt: null,
        finishedAt: T0 + MINUTE,
        attempt: 2,
      },
      expiresAt: T0 + 2 * MINUTE,
      reclaimable: true,
    });

    // Act
    const asFirstAttempt = await store.claimJob({ ...claim('fire', 1, 'first'), reclaimCancelledFire: true });
    const asItsAttempt = await store.claimJob({ ...claim('fire', 2, 'second'), reclaimCancelledFire: true });

    // Assess
    expect(asFirstAttempt).toMatchObject({ status: 'cancelled', reclaimAsAttempt: 2 });
    expect(asItsAttempt).toMatchObject({
      status: 'claimed',
      reclaimed: true,
      job: { attempt: 2, leaseOwner: 'second' },
    });
  });

  it('asks a running job to stop: its owner reads the request, a later attempt claims it with the request, retry_job clears it', async () => {
    // Prepare: `running` claimed by w1; `queued` added and never claimed
    await store.claimJob(claim('running', 1, 'w1', { limit: 2 }));
    await store.createJob({
      job: jobRequest('queued'),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });

    // Act: asked twice, read by its owner and by another; retried by its worker, then claimed as attempt 2
    const asked = await store.requestCancel('running', T0 + SECOND);
    const askedAgain = await store.requestCancel('running', T0 + 2 * SECOND);
    const ownerReads = await store.isCancelRequested('running', 'w1');
    const otherReads = await store.isCancelRequested('running', 'w2');
    const notRunning = await store.requestCancel('queued', T0 + SECOND);
    const absent = await store.requestCancel('nobody', T0 + SECOND);
    await store.retryJob({
      jobId: 'running',
      owner: 'w1',
      failedAttempt: 1,
      error: { type: 'AbortError', message: 'aborted' },
      retryAt: T0 + 3 * SECOND,
      now: T0 + 3 * SECOND,
      heldSlot: { task: 'send-report', carriedOn: false },
    });
    const nextAttempt = await store.claimJob(claim('running', 2, 'w2', { now: T0 + 4 * SECOND, limit: 2 }));
    const secondOwnerReads = await store.isCancelRequested('running', 'w2');

    // Assess
    expect(asked).toMatchObject({ status: 'running', leaseOwner: 'w1', cancelRequestedAt: T0 + SECOND });
    expect(askedAgain?.cancelRequestedAt).toBe(T0 + SECOND);
    expect([ownerReads, otherReads]).toEqual([true, false]);
    expect([notRunning, absent]).toEqual([undefined, undefined]);
    expect((await store.getJob('queued', T0 + SECOND))?.cancelRequestedAt).toBeUndefined();
    expect(nextAttempt).toMatchObject({
      status: 'claimed',
      job: { attempt: 2, cancelRequestedAt: T0 + SECOND },
    });
    expect(secondOwnerReads).toBe(true);
  });

  it('lets retry_job run a job again whose cancellation was asked while it ran', async () => {
    await store.claimJob(claim('asked', 1, 'w1'));
    await store.requestCancel('asked', T0 + SECOND);
    await store.finishJob({
      jobId: 'asked',
      owner: 'w1',
      result: {
        outcome: 'error',
        error: { type: 'Error', message: 'x' },
        startedAt: T0,
        finishedAt: T0 + 2 * SECOND,
        attempt: 1,
      },
      expiresAt: T0 + MINUTE,
    });

    const retried = await store.retryEndedJob({
      jobId: 'asked',
      now: T0 + 3 * SECOND,
      owner: 'admin',
      leaseUntil: T0 + MINUTE,
    });
    const claimed = await store.claimJob(claim('asked', 2, 'w2', { now: T0 + 4 * SECOND }));

    expect(retried?.status).toBe('retried');
    expect(retried?.job.cancelRequestedAt).toBeUndefined();
    expect(claimed).toMatchObject({ status: 'claimed', job: { attempt: 2 } });
    expect(claimed.status === 'claimed' && claimed.job.cancelRequestedAt).toBeFalsy();
  });
}
