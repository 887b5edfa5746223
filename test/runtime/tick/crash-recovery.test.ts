import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { dispatchRuntime, fireTimes, interval, MINUTE, ranOnceEach } from '../dispatch/dispatch-harness';
import { idAtPhase, jobRequest, SECOND, sqsRecord, T0 } from '../support';
import { recordFor, workerHarness } from '../worker/harness';

/** A schedule whose chunks start at the grid's boundaries (T0 is one): the chunk read is [T0, T0 + 120 s). */
const EVERY_30S = idAtPhase('every-30s');

/**
 * A schedule every 30 s from T0 (coalesce `all`: every missed fire must still run), added through the
 * admin API at `addedAt` (or written with its first note by an admin call that died after its write),
 * and a dispatch that dies (its note write throws) after it sent its fires, before its successor note.
 */
async function crashingAfterTheSend(addedAt: number, adminDied: boolean) {
  const runtime = dispatchRuntime();
  runtime.clock.set(addedAt);
  if (adminDied) await runtime.addAndDie(EVERY_30S, interval(30));
  else await runtime.add(EVERY_30S, interval(30));
  const writeDueNotes = runtime.store.writeDueNotes.bind(runtime.store);
  runtime.store.writeDueNotes = async () => {
    runtime.store.writeDueNotes = writeDueNotes;
    throw new Error('process died after SendMessageBatch, before the successor note');
  };
  return runtime;
}

describe('crash recovery', () => {
  it('loses no fire and runs none twice when a dispatch dies between its send and its successor note', async () => {
    // Prepare: the chunk [T0, T0 + 120 s) is noted, read from T0 − 150 s
    const runtime = await crashingAfterTheSend(T0 - 5 * MINUTE, false);
    runtime.clock.set(T0 - 120 * SECOND);

    // Act: the dying tick sent T0 … T0 + 90 s; the next reads the same note and sends them again
    const crashed = await runtime.tick();
    runtime.clock.set(T0 - 60 * SECOND);
    const next = await runtime.tick();
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE, (at) => runtime.deliverDue(at));
    await runtime.deliverDue(T0 + 5 * MINUTE);

    // Assess: the first chunk was sent twice (the same ids), and every fire ran once
    expect(crashed.notes).toMatchObject({ bucketsHeld: 1, notesWritten: 0 });
    expect(next).toMatchObject({ jobsEnqueued: 4, errors: 0 });
    const firstChunk = runtime
      .sentOf(EVERY_30S)
      .filter((s) => (s.message.job.fireTime as number) < T0 + 120 * SECOND);
    expect(firstChunk).toHaveLength(8);
    expect(ranOnceEach(runtime.runs)).toEqual({
      times: fireTimes(interval(30), T0, T0 + 5 * MINUTE),
      once: true,
    });
  });

  it('loses no fire and runs none twice when a dispatch that caught up on missed fires dies before its successor note', async () => {
    // Prepare: an admin call wrote the schedule and its first note and died; its first three fires are missed
    const runtime = await crashingAfterTheSend(T0 - 20 * SECOND, true);
    runtime.clock.set(T0 + 61 * SECOND);

    // Act: the dying tick sent T0 … (missed ones at once); the next one, 20 s later, reads the same note
    const crashed = await runtime.tick();
    runtime.clock.set(T0 + 81 * SECOND);
    const next = await runtime.tick();
    runtime.clock.set(T0 + 141 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE, (at) => runtime.deliverDue(at));
    await runtime.deliverDue(T0 + 5 * MINUTE);

    // Assess: every fire, the missed ones included, ran once
    expect(crashed.notes.bucketsHeld).toBe(1);
    expect(next.errors).toBe(0);
    expect(next.jobsEnqueued).toBeGreaterThan(0);
    const messages = runtime.sentOf(EVERY_30S);
    expect(messages.length).toBeGreaterThan(new Set(messages.map((s) => s.message.job.id)).size);
    expect(ranOnceEach(runtime.runs)).toEqual({
      times: fireTimes(interval(30), T0, T0 + 5 * MINUTE),
      once: true,
    });
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
