import { describe, expect, it } from 'vitest';
import { WAKE_LEASE_MS } from '../../../lib/core/ports/waiting-line';
import { wakeNextWaitingJob } from '../../../lib/runtime/flow/wake-line';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { T0 } from '../support';
import { recordFor, workerHarness } from '../worker/harness';

/** A task limited to 1 with job `waiter` in its line and its slot free; counts runs per job. */
async function lineWithFreeSlot() {
  const runs = new Map<string, number>();
  const worker = workerHarness({
    limited: {
      maxRunningJobs: 1,
      handler: (_payload, { jobId }) => void runs.set(jobId, (runs.get(jobId) ?? 0) + 1),
    },
  });
  await worker.store.claimJob({
    job: { ...JSON.parse(recordFor('holder', 'limited').body).job },
    attempt: 1,
    owner: 'someone',
    now: T0,
    leaseUntil: T0 + 60_000,
    concurrencyLimit: 1,
  });
  await worker.deliver([recordFor('waiter', 'limited')]);
  await worker.store.finishJob({
    jobId: 'holder',
    owner: 'someone',
    result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
    expiresAt: T0 + 60_000,
  });
  return { worker, runs, tick: createTickHandler(() => worker.deps) };
}

describe('waking waiting jobs when a waker dies', () => {
  it('wakes a job again after the hold of a waker that died before sending; it runs once', async () => {
    // Prepare: the waker holds the entry, then its send never happens (its process died)
    const { worker, runs, tick } = await lineWithFreeSlot();
    worker.queue.failWhen = () => true;
    await wakeNextWaitingJob(worker.deps, 'limited');
    worker.queue.failWhen = () => false;

    // Act: a tick while the hold lasts, then one after it ended
    const duringHold = await tick();
    worker.clock.advance(WAKE_LEASE_MS + 1);
    const afterHold = await tick();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(duringHold.jobsWoken).toBe(0);
    expect(afterHold.jobsWoken).toBe(1);
    expect(runs.get('waiter')).toBe(1);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('drops the second message of a job woken twice (a waker died after sending, before taking it out)', async () => {
    // Prepare: the waker sent the message but never took the entry out of the line
    const { worker, runs, tick } = await lineWithFreeSlot();
    const leaveLine = worker.store.leaveLine.bind(worker.store);
    worker.store.leaveLine = async () => {
      throw new Error('process died');
    };
    await wakeNextWaitingJob(worker.deps, 'limited');
    worker.store.leaveLine = leaveLine;
    const first = worker.queuedRecords();

    // Act: the first message runs the job; after the hold the tick wakes the entry again
    await worker.deliver(first);
    worker.clock.advance(WAKE_LEASE_MS + 1);
    const again = await tick();
    await worker.deliver(worker.queuedRecords());

    // Assess: the job ran once, and the line keeps no entry that would wake it again
    expect(first).toHaveLength(1);
    expect(again.jobsWoken).toBe(1);
    expect(runs.get('waiter')).toBe(1);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });
});
