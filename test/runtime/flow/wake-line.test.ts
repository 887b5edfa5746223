import { describe, expect, it } from 'vitest';
import { WAKE_LEASE_MS } from '../../../lib/core/ports/waiting-line';
import { wakeNextWaitingJob } from '../../../lib/runtime/flow/wake-line';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { T0 } from '../support';
import { recordFor, workerHarness } from '../worker/harness';

type Worker = ReturnType<typeof workerHarness>;

/** Job `waiter` joins the line of task `limited` (limited to 1) while `holder` runs, which then ends. */
async function joinWhileHeld(worker: Worker, holder: string, waiter: string) {
  await worker.store.claimJob({
    job: { ...JSON.parse(recordFor(holder, 'limited').body).job },
    attempt: 1,
    owner: 'someone',
    now: T0,
    leaseUntil: T0 + 60_000,
    concurrencyLimit: 1,
  });
  await worker.deliver([recordFor(waiter, 'limited')]);
  await worker.store.finishJob({
    jobId: holder,
    owner: 'someone',
    result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
    expiresAt: T0 + 60_000,
  });
}

/** A task limited to 1 with job `waiter` in its line and its slot free; counts runs per job. */
async function lineWithFreeSlot() {
  const runs = new Map<string, number>();
  const worker = workerHarness({
    limited: {
      maxRunningJobs: 1,
      handler: (_payload, { jobId }) => void runs.set(jobId, (runs.get(jobId) ?? 0) + 1),
    },
  });
  await joinWhileHeld(worker, 'holder', 'waiter');
  return { worker, runs, tick: createTickHandler(() => worker.deps) };
}

/** A waker wakes the head of the line, sends its message and dies before taking the entry out. */
async function wakeAndDieBeforeLeaving(worker: Worker) {
  const leaveLine = worker.store.leaveLine.bind(worker.store);
  worker.store.leaveLine = async () => {
    throw new Error('process died');
  };
  await wakeNextWaitingJob(worker.deps, 'limited');
  worker.store.leaveLine = leaveLine;
  return worker.queuedRecords();
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

  it('takes the entry out at the claim when the waker died after sending, before taking it out', async () => {
    // Prepare: the waker sent the message but never took the entry out of the line
    const { worker, runs, tick } = await lineWithFreeSlot();
    const first = await wakeAndDieBeforeLeaving(worker);

    // Act: the first message runs the job; after the hold a tick finds nothing left to wake
    await worker.deliver(first);
    const afterRun = await worker.store.waitingCount('limited');
    worker.clock.advance(WAKE_LEASE_MS + 1);
    const again = await tick();
    await worker.deliver(worker.queuedRecords());

    // Assess: the job ran once, and its claim took its entry out of the line
    expect(first).toHaveLength(1);
    expect(afterRun).toBe(0);
    expect(again.jobsWoken).toBe(0);
    expect(runs.get('waiter')).toBe(1);
  });

  it('wakes the next job at the next tick, not after the hold, when the waker died after sending', async () => {
    // Prepare: two jobs wait; the waker of the first sends its message and dies before taking it out
    const { worker, runs, tick } = await lineWithFreeSlot();
    await joinWhileHeld(worker, 'holder-2', 'zz-next');
    const first = await wakeAndDieBeforeLeaving(worker);

    // Act: the woken job runs (its worker dies too before waking anyone); a tick within the hold
    worker.store.leaseLineHead = async () => [];
    await worker.deliver(first);
    delete (worker.store as { leaseLineHead?: unknown }).leaseLineHead;
    const withinHold = await tick();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(first.map((record) => JSON.parse(record.body).job.id)).toEqual(['waiter']);
    expect(withinHold.jobsWoken).toBe(1);
    expect(runs.get('zz-next')).toBe(1);
  });

  it('takes the entry out when the woken job already ran elsewhere, so the next job is woken at once', async () => {
    // Prepare: `waiter` ran through another copy of its message (finished here) while its entry stayed
    // in the line; `zz-next` waits behind it. The waker of `waiter` sends and dies before taking it out.
    const { worker, runs } = await lineWithFreeSlot();
    await joinWhileHeld(worker, 'holder-2', 'zz-next');
    await joinWhileHeld(worker, 'waiter', 'zz-next');
    const first = await wakeAndDieBeforeLeaving(worker);

    // Act: the woken copy is a duplicate; whatever it wakes runs, all within the dead waker's hold
    await worker.deliver(first);
    await worker.deliver(worker.queuedRecords());

    // Assess: the duplicate took its entry out and passed the wake-up on to the next job
    expect(first.map((record) => JSON.parse(record.body).job.id)).toEqual(['waiter']);
    expect(runs.get('waiter')).toBeUndefined();
    expect(runs.get('zz-next')).toBe(1);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });
});
