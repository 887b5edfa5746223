import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../lib/core/errors';
import { CARRIED_RESEND_MS, WOKEN_RESEND_MS } from '../../../lib/core/ports/waiting-line';
import { sendWoken } from '../../../lib/runtime/flow/woken';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { T0 } from '../support';
import { recordFor, settle, workerHarness } from './harness';

/** A task limited to 2 that measures its own concurrency, and 5 jobs of it for one batch. */
function fiveJobsLimitedToTwo() {
  const seen = { maxRunning: 0, started: [] as string[] };
  let running = 0;
  const worker = workerHarness({
    limited: {
      maxRunningJobs: 2,
      timeoutSeconds: 30,
      handler: async (_payload, { jobId }) => {
        running += 1;
        seen.maxRunning = Math.max(seen.maxRunning, running);
        seen.started.push(jobId);
        await worker.deps.sleep(5);
        running -= 1;
      },
    },
  });
  const records = ['a', 'b', 'c', 'd', 'e'].map((id, index) =>
    recordFor(id, 'limited', { runAt: T0 - 1_000 + index }),
  );
  return { worker, records, seen };
}

/** A task limited to 1 (timeout 30 s) that records the order its jobs start in. */
function oneSlotRecordingStarts() {
  const started: string[] = [];
  const worker = workerHarness({
    limited: { maxRunningJobs: 1, timeoutSeconds: 30, handler: (_payload, { jobId }) => started.push(jobId) },
  });
  return { worker, started };
}

/** Jobs `first` and `next` of `limited`, in that line order. */
function firstThenNext() {
  return ['first', 'next'].map((id, index) => recordFor(id, 'limited', { runAt: T0 - 1_000 + index }));
}

describe('worker: maxRunningJobs', () => {
  it('never runs more jobs of a task than maxRunningJobs; the overflow waits in line and is woken as slots come back, by message near the end of an invocation', async () => {
    // Prepare
    const { worker, records, seen } = fiveJobsLimitedToTwo();

    // Act: deliver, then deliver whatever the wake-ups put in the queue until nothing comes
    const responses = [await worker.deliverNearItsEnd(records)];
    // a and b ran; c, d and e joined the line; a and b ending handed their slots to c and d
    const waitingAfterFirst = await worker.store.waitingCount('limited');
    const headAfterFirst = (await worker.store.lineHead('limited'))?.message.job.id;
    const wokenAfterFirst = worker.queue.sent.map((message) => message.job.id);
    for (let batch = worker.queuedRecords(); batch.length > 0; batch = worker.queuedRecords()) {
      responses.push(await worker.deliverNearItsEnd(batch));
    }

    // Assess: no message was hidden or kept; the line emptied in order
    expect(seen.maxRunning).toBe(2);
    // Woken jobs wait (holding their slots) until they start
    expect(waitingAfterFirst).toBe(3);
    expect(headAfterFirst).toBe('e');
    expect(wokenAfterFirst).toEqual(['c', 'd']);
    expect(seen.started.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(seen.started.slice(2)).toEqual(['c', 'd', 'e']);
    expect(responses.flatMap((response) => response.batchItemFailures)).toEqual([]);
    expect(worker.queue.visibilityChanges).toEqual([]);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('runs the job its slot was handed to next in the same invocation while it has time: the whole line drains without a message', async () => {
    // Prepare
    const { worker, records, seen } = fiveJobsLimitedToTwo();

    // Act: an invocation with 10 minutes left
    const response = await worker.deliver(records, 600_000);

    // Assess: c, d and e ran in line order in the invocation whose runs handed them their slots
    expect(seen.maxRunning).toBe(2);
    expect(seen.started.slice(0, 2).sort()).toEqual(['a', 'b']);
    expect(seen.started.slice(2)).toEqual(['c', 'd', 'e']);
    expect(worker.queue.sent).toEqual([]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
    for (const id of ['c', 'd', 'e']) {
      expect(await worker.store.getJob(id, worker.clock.now())).toMatchObject({ status: 'success' });
    }
  });

  it('sends a carried job to the queue when its delivery must come back (its claim failed), and runs it from there once', async () => {
    // Prepare: one slot; the first claim of a woken job fails: that of `next`, carried on by `first`'s run
    const { worker, started } = oneSlotRecordingStarts();
    const claimJob = worker.store.claimJob.bind(worker.store);
    let failedClaims = 0;
    worker.store.claimJob = async (input) => {
      if (input.woken !== undefined && failedClaims === 0) {
        failedClaims += 1;
        throw new Error('store unavailable');
      }
      return claimJob(input);
    };
    const records = firstThenNext();

    // Act
    const response = await worker.deliver(records, 600_000);
    const sent = worker.queue.sent.map((message) => [message.job.id, message.woken, message.delaySeconds]);
    await worker.deliver(worker.queuedRecords(), 600_000);

    // Assess: the woken entry kept its slot until the message that came back claimed it
    expect(response.batchItemFailures).toEqual([]);
    expect(failedClaims).toBe(1);
    expect(sent).toEqual([['next', true, 1]]);
    expect(started).toEqual(['first', 'next']);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('makes a claim whose answer was lost in an outage again and runs the job it had claimed, holding no slot without a handler', async () => {
    // Prepare: the woken claim of `next` applies, then the store gives up (its answer lost in a burst)
    const { worker, started } = oneSlotRecordingStarts();
    const claimJob = worker.store.claimJob.bind(worker.store);
    let lostAnswers = 0;
    worker.store.claimJob = async (input) => {
      const outcome = await claimJob(input);
      if (input.job.id === 'next' && lostAnswers === 0) {
        lostAnswers += 1;
        throw new StoreUnavailableError('claimJob (throttled)');
      }
      return outcome;
    };

    // Act
    const response = await worker.deliver(firstThenNext(), 600_000);

    // Assess: `next` ran in the delivery that claimed it; nothing came back, nothing holds the slot
    expect(lostAnswers).toBe(1);
    expect(started).toEqual(['first', 'next']);
    expect(response.batchItemFailures).toEqual([]);
    expect(worker.queue.sent).toEqual([]);
    expect(await worker.store.getJob('next', worker.clock.now())).toMatchObject({ status: 'success' });
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('sends the job its slot was handed to when the invocation no longer has time to carry it on after the ending, due again only as a sent one', async () => {
    // Prepare: time for one more job when `first` ends, gone once the store has answered (it took 1 s)
    const { worker, started } = oneSlotRecordingStarts();
    const finishJob = worker.store.finishJob.bind(worker.store);
    worker.store.finishJob = async (input) => {
      const end = await finishJob(input);
      worker.clock.advance(1_000);
      return end;
    };
    const enoughAtTheEnd = 30_000 + worker.deps.config.workerSafetyMarginMs + 1_000;
    const deadline = worker.clock.now() + enoughAtTheEnd + 500;
    const records = firstThenNext();

    // Act
    await worker.deliver(records, () => deadline - worker.clock.now());
    const sent = worker.queue.sent.map((message) => [message.job.id, message.woken]);
    const now = worker.clock.now();
    const overdueSoon = await worker.store.overdueWoken('limited', now + CARRIED_RESEND_MS);
    const overdueLater = await worker.store.overdueWoken('limited', now + WOKEN_RESEND_MS);
    await worker.deliver(worker.queuedRecords(), 600_000);

    // Assess: its entry was woken to be carried on; its resend was taken before its message went
    expect(sent).toEqual([['next', true]]);
    expect(overdueSoon).toEqual([]);
    expect(overdueLater.map((entry) => entry.message.job.id)).toEqual(['next']);
    expect(started).toEqual(['first', 'next']);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('lets the message of a job that found no slot go and keeps the job in its line; the tick sends a lost wake-up once overdue', async () => {
    // Prepare: the one slot is taken by a run whose worker hands it on, then dies before sending the wake-up
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
    worker.clock.advance(WOKEN_RESEND_MS + 1);
    const summary = await createTickHandler(() => worker.deps)();

    // Assess: the head of the line (earliest run time) was handed the slot; its wake-up is sent
    expect(response.batchItemFailures).toEqual([]);
    expect(worker.queue.visibilityChanges).toEqual([]);
    expect(waiting).toBe(3);
    expect(sentWhileFull).toEqual([]);
    expect(summary.jobsWoken).toBe(1);
    expect(worker.queue.sent.map((message) => [message.job.id, message.delaySeconds])).toEqual([
      ['earlier', 0],
    ]);
    expect(await worker.store.waitingCount('limited')).toBe(3);
    expect((await worker.store.lineHead('limited'))?.message.job.id).toBe('later');
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 1]]));
  });

  it('claims at once when the slot came back between its failed take and its joining the line', async () => {
    // Prepare: the holder ends (without waking anyone: the line still looked empty) right as the job joins
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await worker.store.claimJob(holderClaim());
    const join = worker.store.joinLine.bind(worker.store);
    worker.store.joinLine = async (input) => {
      await endHolder(worker.store);
      return join(input);
    };

    // Act
    const response = await worker.deliver([recordFor('waiter', 'limited')]);

    // Assess: it ran in the same delivery, with no wake-up through the queue, and left the line
    expect(response.batchItemFailures).toEqual([]);
    expect(worker.queue.sent).toEqual([]);
    expect(await worker.store.getJob('waiter', worker.clock.now())).toMatchObject({ status: 'success' });
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('starts a critical job next after the normal job its slot was handed to before the critical one joined', async () => {
    // Prepare: two normal jobs wait; the holder ends and hands its slot to the first (its message is on
    // its way) right as a critical job, refused a slot a moment before, joins the line
    const started: string[] = [];
    const worker = workerHarness({
      limited: { maxRunningJobs: 1, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    for (const id of ['normal-1', 'normal-2']) {
      await worker.store.joinLine({ message: { job: recordJob(id), attempt: 1 }, now: T0 });
    }
    await worker.store.claimJob(holderClaim());
    const join = worker.store.joinLine.bind(worker.store);
    worker.store.joinLine = async (input) => {
      if (input.message.job.id === 'critical') await endHolderHandingOn(worker);
      return join(input);
    };

    // Act: the critical job's delivery, then whatever the queue brings until nothing comes
    await worker.deliver([recordFor('critical', 'limited', { priority: 'critical' })]);
    const wokenFirst = worker.queue.sent.map((message) => message.job.id);
    for (let batch = worker.queuedRecords(); batch.length > 0; batch = worker.queuedRecords()) {
      await worker.deliver(batch);
    }

    // Assess: the slot handed on stayed the first normal job's; as it came back it went to the critical
    // job, before the normal job that waited longer; never two at once
    expect(wokenFirst).toEqual(['normal-1']);
    expect(started).toEqual(['normal-1', 'critical', 'normal-2']);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
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
    await endHolderHandingOn(worker);

    // Act: the late job is delivered
    await worker.deliverNearItsEnd(worker.queuedRecords());

    // Assess: it did not run, and the slot it was handed went on to the next job, woken
    expect(await worker.store.getJob('late', worker.clock.now())).toMatchObject({
      status: 'missed_start_deadline',
    });
    expect(worker.queue.sent.map((message) => [message.job.id, message.woken])).toEqual([['next', true]]);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 1]]));
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
    const holder = worker.deliverNearItsEnd([recordFor('holder', 'limited')]);
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
    await worker.deliverNearItsEnd(worker.queuedRecords());

    // Assess
    expect(started).toEqual(['holder', 'urgent']);
    expect(worker.queue.sent.map((message) => message.job.id)).toEqual(['normal-0']);
    expect(await worker.store.waitingCount('limited')).toBe(100);
    expect((await worker.store.lineHead('limited'))?.message.job.id).toBe('normal-1');
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

/** The holder's run ends; its worker dies before sending the wake-up of the job the slot went to. */
function endHolder(store: ReturnType<typeof workerHarness>['store']) {
  return store.finishJob({
    jobId: 'holder',
    owner: 'someone',
    result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
    expiresAt: T0 + 60_000,
  });
}

/** The holder's run ends as a worker ends it: its slot handed to the line's head, whose message is sent. */
async function endHolderHandingOn(worker: ReturnType<typeof workerHarness>) {
  const end = await worker.store.finishJob({
    jobId: 'holder',
    owner: 'someone',
    result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
    expiresAt: T0 + 60_000,
  });
  if (end.woken) await sendWoken(worker.deps, [end.woken]);
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
