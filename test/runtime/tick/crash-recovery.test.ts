import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { jobRequest, SECOND, scheduleDefinition, sqsRecord, T0 } from '../support';
import { recordFor, workerHarness } from '../worker/harness';
import { fireCountingWorker } from './fire-counting-worker';

/** A worker counting runs, with a schedule firing every 30 s from T0 (coalesce 'all') added at T0 - 400 ms. */
async function everyThirtySeconds(config: Parameters<typeof fireCountingWorker>[0], maxRuns: number | null) {
  const counting = fireCountingWorker(config);
  const { worker } = counting;
  worker.clock.set(T0 - 400);
  await worker.store.addSchedule({
    schedule: scheduleDefinition('every-30s', { coalesce: 'all', maxRuns }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: worker.clock.now(),
  });
  return counting;
}

/** Makes the store's advances fail as if the process died after sending; returns the restore. */
function crashBeforeAdvance(worker: ReturnType<typeof fireCountingWorker>['worker']): () => void {
  const advance = worker.store.advanceSchedule.bind(worker.store);
  worker.store.advanceSchedule = async () => {
    throw new Error('process died after SendMessageBatch, before the advance');
  };
  return () => {
    worker.store.advanceSchedule = advance;
  };
}

describe('crash recovery', () => {
  it('loses no fire and runs none twice when a tick crashes between sending and releasing', async () => {
    // Prepare: a schedule firing every 30 s from T0 (coalesce 'all': every missed fire must still run),
    // its first fire already missed; with `max_runs` the tick leases it
    const { worker, runs } = await everyThirtySeconds({ scheduleLeaseSeconds: 120 }, 1_000);
    worker.clock.set(T0 + 1);
    const tick = createTickHandler(() => worker.deps);
    const release = worker.store.releaseSchedule.bind(worker.store);
    worker.store.releaseSchedule = async () => {
      throw new Error('process died after SendMessageBatch, before the release');
    };

    // Act: the crashed tick sent T0 … +90 s but never released; the lease expires; ticks resume
    const crashed = await tick();
    worker.store.releaseSchedule = release;
    worker.clock.advance(60 * SECOND);
    const whileLeased = await tick();
    worker.clock.set(T0 + 122 * SECOND);
    const recovered = await tick();
    worker.clock.set(T0 + 300 * SECOND);
    const messages = worker.queue.drain();
    await worker.deliver(messages.map((message) => sqsRecord(message)));

    // Assess
    expect(crashed.errors).toBe(1);
    expect(whileLeased.schedulesProcessed).toBe(0);
    expect(recovered.schedulesProcessed).toBe(1);
    const expectedFires = Array.from({ length: 8 }, (_, index) => T0 + index * 30 * SECOND);
    expect([...runs.keys()].sort()).toEqual(expectedFires);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(messages.length).toBeGreaterThan(expectedFires.length);
  });

  it('loses no fire and runs none twice when a lease-less tick that caught up on missed fires crashes before moving the schedule on', async () => {
    // Prepare: a schedule firing every 30 s from T0 (coalesce 'all'), its first three fires missed: no
    // cap on runs, so no lease either
    const { worker, runs } = await everyThirtySeconds({}, null);
    worker.clock.set(T0 + 61 * SECOND);
    const tick = createTickHandler(() => worker.deps);
    const restoreAdvance = crashBeforeAdvance(worker);

    // Act: the crashed tick sent T0 … +150 s; the next one, 20 s later, reads the same state
    const crashed = await tick();
    restoreAdvance();
    worker.clock.advance(20 * SECOND);
    const next = await tick();
    worker.clock.set(T0 + 300 * SECOND);
    const messages = worker.queue.drain();
    await worker.deliver(messages.map((message) => sqsRecord(message)));

    // Assess: every fire up to the second tick's lookahead ran once, the missed ones included
    expect(crashed.errors).toBe(1);
    expect(next).toMatchObject({ schedulesProcessed: 1, errors: 0, jobsEnqueued: 6, leasesLost: 0 });
    const expectedFires = Array.from({ length: 6 }, (_, index) => T0 + index * 30 * SECOND);
    expect([...runs.keys()].sort()).toEqual(expectedFires);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(messages).toHaveLength(2 * expectedFires.length);
    expect(await worker.store.getSchedule('every-30s')).toMatchObject({ nextFireAt: T0 + 180 * SECOND });
  });

  it('loses no fire and runs none twice when a lease-less tick crashes between sending and moving the schedule on', async () => {
    // Prepare: a schedule firing every 30 s from T0, its first fire ahead: no lease is taken
    const { worker, runs } = await everyThirtySeconds({}, null);
    const tick = createTickHandler(() => worker.deps);
    const restoreAdvance = crashBeforeAdvance(worker);

    // Act: the crashed tick sent T0, +30 s, +60 s and never moved the schedule on; the next tick (no
    // lease to wait for) reads the same state and sends the same fires again
    const crashed = await tick();
    restoreAdvance();
    worker.clock.advance(100);
    const next = await tick();
    worker.clock.set(T0 + 200 * SECOND);
    const messages = worker.queue.drain();
    await worker.deliver(messages.map((message) => sqsRecord(message)));

    // Assess
    expect(crashed.errors).toBe(1);
    expect(next).toMatchObject({ schedulesProcessed: 1, errors: 0, jobsEnqueued: 3 });
    const expectedFires = [T0, T0 + 30 * SECOND, T0 + 60 * SECOND];
    expect([...runs.keys()].sort()).toEqual(expectedFires);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(messages).toHaveLength(2 * expectedFires.length);
    expect(await worker.store.getSchedule('every-30s')).toMatchObject({ nextFireAt: T0 + 90 * SECOND });
  });

  it('reaps a job whose worker vanished: returns its slot and hands it to a next attempt', async () => {
    // Prepare: attempt 1 of a slot-limited job was claimed by a worker that died
    let runs = 0;
    const worker = workerHarness({
      limited: { maxRunningJobs: 1, retry: { maxAttempts: 2 }, handler: () => void runs++ },
    });
    const job = {
      id: 'job-1',
      task: 'limited',
      payload: null,
      origin: 'direct' as const,
      scheduleId: null,
      fireTime: null,
      runAt: T0,
      startDeadline: null,
    };
    await worker.store.claimJob({
      job,
      attempt: 1,
      owner: 'dead-worker',
      now: T0,
      leaseUntil: T0 + 90 * SECOND,
      concurrencyLimit: 1,
    });
    const tick = createTickHandler(() => worker.deps);

    // Act
    worker.clock.set(T0 + 91 * SECOND);
    const summary = await tick();
    const afterReap = await worker.store.getJob('job-1', worker.clock.now());
    const slots = await worker.store.runningCounts();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(summary.jobsReaped).toBe(1);
    expect(afterReap).toMatchObject({ status: 'retrying', result: { error: { type: 'LeaseExpiredError' } } });
    expect(slots.get('limited')).toBe(0);
    expect(runs).toBe(1);
    expect((await worker.store.getJob('job-1', worker.clock.now()))?.result).toMatchObject({
      outcome: 'success',
      attempt: 2,
    });
  });

  it('finishes a reaped job as abandoned when its task allows no further attempt', async () => {
    // Prepare: the task (limited: its runs hold slots, which the reaper returns) allows a single attempt, whose worker died
    let runs = 0;
    const worker = workerHarness({
      once: { maxRunningJobs: 1, retry: { maxAttempts: 1 }, handler: () => void runs++ },
    });
    const job = {
      id: 'job-1',
      task: 'once',
      payload: null,
      origin: 'direct' as const,
      scheduleId: null,
      fireTime: null,
      runAt: T0,
      startDeadline: null,
    };
    await worker.store.claimJob({
      job,
      attempt: 1,
      owner: 'dead-worker',
      now: T0,
      leaseUntil: T0 + 90 * SECOND,
      concurrencyLimit: 1,
    });

    // Act
    worker.clock.set(T0 + 91 * SECOND);
    await createTickHandler(() => worker.deps)();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(runs).toBe(0);
    const finished = await worker.store.getJob('job-1', worker.clock.now());
    expect(finished?.result).toMatchObject({ outcome: 'abandoned', attempt: 2 });
    expect(worker.publisher.events.map((event) => event.type)).toEqual(['job.abandoned']);
    expect(await worker.store.runningCounts()).toEqual(new Map([['once', 0]]));
  });

  it("lets the redelivered message of an unlimited job take over its run once the dead worker's lease ends", async () => {
    // Prepare: attempt 1 of an unlimited job was claimed by a worker that died; its message was not deleted
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    const record = recordFor('job-1', 'echo');
    await worker.store.claimJob({
      job: jobRequest('job-1'),
      attempt: 1,
      owner: 'dead-worker',
      now: T0,
      leaseUntil: T0 + 90 * SECOND,
    });

    // Act: the queue redelivers the message while the lease runs, then again after it ended
    worker.clock.set(T0 + 30 * SECOND);
    const whileLeased = await worker.deliver([record]);
    const wait = worker.queue.visibilityChanges.at(-1)?.seconds;
    const reaped = await createTickHandler(() => worker.deps)();
    worker.clock.set(T0 + 91 * SECOND);
    const afterLease = await worker.deliver([record]);

    // Assess: kept until the lease ended (the tick does not reap slot-less runs), then run as attempt 2
    expect(whileLeased.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(wait).toBe(61);
    expect(reaped.jobsReaped).toBe(0);
    expect(afterLease.batchItemFailures).toEqual([]);
    expect(runs).toBe(1);
    expect((await worker.store.getJob('job-1', worker.clock.now()))?.result).toMatchObject({
      outcome: 'success',
      attempt: 2,
    });
  });

  it("runs a taken-over run even past its fire's start deadline: the run had started in time", async () => {
    // Prepare: a scheduled job with a 10 s start deadline started at once; its worker died
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    const job = jobRequest('nightly@1', {
      scheduleId: 'nightly',
      fireTime: T0,
      startDeadline: T0 + 10 * SECOND,
    });
    await worker.store.claimJob({
      job,
      attempt: 1,
      owner: 'dead-worker',
      now: T0,
      leaseUntil: T0 + 90 * SECOND,
    });

    // Act
    worker.clock.set(T0 + 91 * SECOND);
    await worker.deliver([sqsRecord({ job, attempt: 1 })]);

    // Assess
    expect(runs).toBe(1);
    expect((await worker.store.getJob('nightly@1', worker.clock.now()))?.result).toMatchObject({
      outcome: 'success',
      attempt: 2,
    });
  });
});
