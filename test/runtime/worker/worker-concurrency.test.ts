import { describe, expect, it } from 'vitest';
import { wakeNextWaitingJob } from '../../../lib/runtime/flow/wake-line';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { sqsRecord, T0 } from '../support';
import { recordFor, settle, workerHarness } from './harness';

describe('worker: maxRunningJobs', () => {
  it('never runs more jobs of a task than maxRunningJobs; the overflow waits in line and is woken as slots come back', async () => {
    // Prepare: a task limited to 2, measuring its own concurrency; 5 jobs arrive in one batch
    let running = 0;
    let maxRunning = 0;
    const started: string[] = [];
    const worker = workerHarness({
      limited: {
        maxRunningJobs: 2,
        handler: async (_payload, { jobId }) => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          started.push(jobId);
          await worker.deps.sleep(5);
          running -= 1;
        },
      },
    });
    const records = ['a', 'b', 'c', 'd', 'e'].map((id, index) =>
      recordFor(id, 'limited', { runAt: T0 - 1_000 + index }),
    );

    // Act: deliver, then deliver whatever the wake-ups put in the queue until nothing comes
    const responses = [await worker.deliver(records)];
    // a and b ran; c, d and e joined the line; a and b ending woke c and d
    const waitingAfterFirst = await worker.store.waitingCount('limited');
    const wokenAfterFirst = worker.queue.sent.map((message) => message.job.id);
    for (let batch = worker.queuedRecords(); batch.length > 0; batch = worker.queuedRecords()) {
      responses.push(await worker.deliver(batch));
    }

    // Assess: no message was hidden or kept; the line emptied in order
    expect(maxRunning).toBe(2);
    expect(waitingAfterFirst).toBe(1);
    expect(wokenAfterFirst).toEqual(['c', 'd']);
    expect(started.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(started.slice(2)).toEqual(['c', 'd', 'e']);
    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(worker.queue.visibilityChanges).toEqual([]);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('lets the message of a job that found no slot go and keeps the job in its line; the tick wakes the line when a slot is free', async () => {
    // Prepare: the one slot is taken by a run that ends without waking anyone (a lost wake-up)
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await worker.store.claimJob(holderClaim());

    // Act: three jobs arrive; the holder ends; a tick runs
    const response = await worker.deliver([
      recordFor('later', 'limited', { runAt: T0 - 1_000 }),
      recordFor('earlier', 'limited', { runAt: T0 - 2_000 }),
      recordFor('latest', 'limited', { runAt: T0 - 500 }),
    ]);
    const waiting = await worker.store.waitingCount('limited');
    const sentWhileFull = worker.queue.drain();
    await endHolder(worker.store);
    const summary = await createTickHandler(() => worker.deps)();

    // Assess: the head of the line (earliest run time) is sent again, at once
    expect(response.batchItemFailures).toEqual([]);
    expect(worker.queue.visibilityChanges).toEqual([]);
    expect(waiting).toBe(3);
    expect(sentWhileFull).toEqual([]);
    expect(summary.jobsWoken).toBe(1);
    expect(worker.queue.sent.map((message) => [message.job.id, message.delaySeconds])).toEqual([
      ['earlier', 0],
    ]);
    expect(await worker.store.waitingCount('limited')).toBe(2);
  });

  it('claims at once when the slot came back between its failed take and its joining the line', async () => {
    // Prepare: the holder ends (without waking anyone: the line still looked empty) right as the job joins
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await worker.store.claimJob(holderClaim());
    const join = worker.store.joinLine.bind(worker.store);
    worker.store.joinLine = async (input) => {
      await endHolder(worker.store);
      await join(input);
    };

    // Act
    const response = await worker.deliver([recordFor('waiter', 'limited')]);

    // Assess: it ran in the same delivery, with no wake-up through the queue, and left the line
    expect(response.batchItemFailures).toEqual([]);
    expect(worker.queue.sent).toEqual([]);
    expect(await worker.store.getJob('waiter', worker.clock.now())).toMatchObject({ status: 'success' });
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('starts a critical job before a normal job woken while the critical one was joining the line', async () => {
    // Prepare: a normal job waits; the holder ends and wakes it (its message is on its way) right as a
    // critical job, refused a slot a moment before, joins the line
    const started: string[] = [];
    const worker = workerHarness({
      limited: { maxRunningJobs: 1, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    await worker.store.joinLine({ message: { job: recordJob('normal'), attempt: 1 }, now: T0 });
    await worker.store.claimJob(holderClaim());
    const join = worker.store.joinLine.bind(worker.store);
    worker.store.joinLine = async (input) => {
      if (input.message.job.id === 'critical') {
        await endHolder(worker.store);
        await wakeNextWaitingJob(worker.deps, 'limited');
      }
      await join(input);
    };

    // Act: the critical job's delivery, then the woken normal job's
    await worker.deliver([recordFor('critical', 'limited', { priority: 'critical' })]);
    const wokenNormal = worker.queue.drain();
    await worker.deliver(wokenNormal.map((message) => sqsRecord(message)));

    // Assess: the critical job took the slot at once (not woken through the queue) and ran first; the
    // normal one ran after it
    expect(wokenNormal.map((message) => message.job.id)).toEqual(['normal']);
    expect(started).toEqual(['critical', 'normal']);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('passes a wake-up on when the woken job ends without taking a slot (its start deadline passed)', async () => {
    // Prepare: the head of the line missed its start deadline while it waited; the slot is free
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    const late = recordJob('late');
    await worker.store.joinLine({
      message: { job: { ...late, runAt: T0 - 2_000, startDeadline: T0 - 1_000 }, attempt: 1 },
      now: T0,
    });
    await worker.store.joinLine({
      message: { job: { ...recordJob('next'), runAt: T0 - 1_500 }, attempt: 1 },
      now: T0,
    });
    await worker.store.claimJob(holderClaim());
    await endHolder(worker.store);
    await wakeNextWaitingJob(worker.deps, 'limited');

    // Act: the late job is delivered
    await worker.deliver(worker.queuedRecords());

    // Assess: it did not run, and the next job was woken for the free slot
    expect(await worker.store.getJob('late', worker.clock.now())).toMatchObject({
      status: 'missed_start_deadline',
    });
    expect(worker.queue.sent.map((message) => message.job.id)).toEqual(['next']);
  });

  it('starts a critical job next when it joins behind 100 waiting normal jobs', async () => {
    // Prepare: the one slot is held by a run the test ends; 100 normal jobs wait
    let release: () => void = () => {};
    const started: string[] = [];
    const worker = workerHarness({
      limited: {
        maxRunningJobs: 1,
        handler: async (_payload, { jobId }) => {
          started.push(jobId);
          if (jobId === 'holder') await new Promise<void>((resolve) => (release = resolve));
        },
      },
    });
    const holder = worker.deliver([recordFor('holder', 'limited')]);
    await settle();
    await worker.deliver(
      Array.from({ length: 100 }, (_, index) =>
        recordFor(`normal-${index}`, 'limited', { runAt: T0 - 1_000 + index }),
      ),
    );

    // Act: a critical job comes last; then the holder ends
    await worker.deliver([recordFor('urgent', 'limited', { runAt: T0, priority: 'critical' })]);
    release();
    await holder;
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(started).toEqual(['holder', 'urgent']);
    expect(worker.queue.sent.map((message) => message.job.id)).toEqual(['normal-0']);
    expect(await worker.store.waitingCount('limited')).toBe(99);
  });

  it('keeps the message, back after a short while, when the line cannot be joined', async () => {
    // Prepare
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await worker.store.claimJob(holderClaim());
    worker.store.joinLine = async () => {
      throw new Error('store unavailable');
    };

    // Act
    const response = await worker.deliver([recordFor('waiter', 'limited')]);

    // Assess
    expect(response.batchItemFailures).toHaveLength(1);
    expect(worker.queue.visibilityChanges.map((change) => change.seconds)).toEqual([5]);
  });

  it('puts back a message for the next attempt while the previous attempt still runs, instead of dropping it', async () => {
    // Prepare: attempt 1 is running (its worker has not marked it retrying yet)
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    await worker.store.claimJob({
      job: recordJob('job-1', 'echo'),
      attempt: 1,
      owner: 'w1',
      now: T0,
      leaseUntil: T0 + 60_000,
    });

    // Act
    const response = await worker.deliver([recordFor('job-1', 'echo', {}, 2)]);

    // Assess
    expect(runs).toBe(0);
    expect(response.batchItemFailures).toHaveLength(1);
  });
});

function recordJob(id: string, task = 'limited') {
  return JSON.parse(recordFor(id, task).body).job;
}

/** The holder's run ends without waking anyone (as a worker that died before waking would). */
function endHolder(store: ReturnType<typeof workerHarness>['store']) {
  return store.finishJob({
    jobId: 'holder',
    owner: 'someone',
    result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
    expiresAt: T0 + 60_000,
  });
}

function holderClaim() {
  return {
    job: recordJob('holder'),
    attempt: 1,
    owner: 'someone',
    now: T0,
    leaseUntil: T0 + 60_000,
    concurrencyLimit: 1,
  };
}
