import { describe, expect, it } from 'vitest';
import { CARRIED_RESEND_MS, WOKEN_RESEND_MS } from '../../../lib/core/ports/waiting-line';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { jobRequest, limitedClaim, SUCCESS } from '../../adapters/store-fixtures';
import { sqsRecord, T0 } from '../support';
import { recordFor, settle, workerHarness } from '../worker/harness';

type Worker = ReturnType<typeof workerHarness>;

/**
 * A task `limited` (at most 1 running) whose slot is held by job `holder`, running in the worker until
 * `finishHolder`; job `waiter` (and any of `alsoWaiting`) waits in its line. Records the order of
 * starts and the most jobs running at once. The holder's invocation is near its end, so the job its
 * slot is handed to gets a message, unless `carryOn` gives it time to run that job itself.
 */
async function waiterBehindRunningHolder(alsoWaiting: string[] = [], { carryOn = false } = {}) {
  const started: string[] = [];
  let running = 0;
  let maxRunning = 0;
  let release: () => void = () => {};
  const worker = workerHarness({
    limited: {
      maxRunningJobs: 1,
      handler: async (_payload, { jobId }) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        started.push(jobId);
        if (jobId === 'holder') await new Promise<void>((resolve) => (release = resolve));
        running -= 1;
      },
    },
  });
  const holderRecords = [recordFor('holder', 'limited')];
  const holder = carryOn ? worker.deliver(holderRecords) : worker.deliverNearItsEnd(holderRecords);
  await settle();
  for (const [index, id] of ['waiter', ...alsoWaiting].entries()) {
    await worker.deliver([recordFor(id, 'limited', { runAt: T0 - 1_000 + index })]);
  }
  return {
    worker,
    started,
    maxRunning: () => maxRunning,
    tick: createTickHandler(() => worker.deps),
    /** The holder's handler returns; its worker ends the run. */
    async finishHolder() {
      release();
      await holder;
    },
  };
}

/** Delivers whatever the queue holds, again and again, until it holds nothing. */
async function deliverAll(worker: Worker): Promise<void> {
  for (let batch = worker.queuedRecords(); batch.length > 0; batch = worker.queuedRecords()) {
    await worker.deliver(batch);
  }
}

const slotsTaken = async (worker: Worker) => (await worker.store.runningCounts()).get('limited');

describe('handing slots on to waiting jobs (ADR 0009)', () => {
  it('hands the slot of a run that ends to the head of the line: the woken job claims it and runs', async () => {
    // Prepare
    const { worker, started, maxRunning, finishHolder } = await waiterBehindRunningHolder();
    const waitingBefore = await worker.store.waitingCount('limited');

    // Act
    await finishHolder();
    const sent = worker.queue.drain();
    const slotsAfterEnd = await slotsTaken(worker);
    await worker.deliver(sent.map((message) => sqsRecord(message)));

    // Assess: the slot went from the holder to the waiter (the counter never went down in between)
    expect(waitingBefore).toBe(1);
    expect(sent.map((message) => [message.job.id, message.woken, message.delaySeconds])).toEqual([
      ['waiter', true, 0],
    ]);
    expect(slotsAfterEnd).toBe(1);
    expect(started).toEqual(['holder', 'waiter']);
    expect(maxRunning()).toBe(1);
    expect(await slotsTaken(worker)).toBe(0);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('keeps the slot of a woken job whose message was lost, and the tick sends it again once overdue', async () => {
    // Prepare: the send of the waiter's wake-up fails
    const { worker, started, maxRunning, finishHolder, tick } = await waiterBehindRunningHolder();
    worker.queue.failWhen = (message) => message.job.id === 'waiter';
    await finishHolder();
    worker.queue.failWhen = () => false;

    // Act: a newcomer arrives; a tick at once, then one after the wake-up is overdue
    await worker.deliver([recordFor('newcomer', 'limited')]);
    const newcomerRanAtOnce = started.includes('newcomer');
    const early = await tick();
    worker.clock.advance(WOKEN_RESEND_MS + 1);
    const overdue = await tick();
    const resent = worker.queue.sent.map((message) => [message.job.id, message.woken]);
    await deliverAll(worker);

    // Assess: nobody took the waiter's slot meanwhile; it ran once, then the newcomer
    expect(newcomerRanAtOnce).toBe(false);
    expect(early.jobsWoken).toBe(0);
    expect(overdue.jobsWoken).toBe(1);
    expect(resent).toEqual([['waiter', true]]);
    expect(started).toEqual(['holder', 'waiter', 'newcomer']);
    expect(maxRunning()).toBe(1);
    expect(await slotsTaken(worker)).toBe(0);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('sends an overdue wake-up again from the next worker that touches the task, without a tick', async () => {
    // Prepare: the send of the waiter's wake-up fails
    const { worker, started, finishHolder } = await waiterBehindRunningHolder();
    worker.queue.failWhen = (message) => message.job.id === 'waiter';
    await finishHolder();
    worker.queue.failWhen = () => false;

    // Act: once the wake-up is overdue, a newcomer joins the line
    worker.clock.advance(WOKEN_RESEND_MS + 1);
    await worker.deliver([recordFor('newcomer', 'limited')]);
    const resent = worker.queue.sent.map((message) => message.job.id);
    await deliverAll(worker);

    // Assess
    expect(resent).toEqual(['waiter']);
    expect(started).toEqual(['holder', 'waiter', 'newcomer']);
    expect(await slotsTaken(worker)).toBe(0);
  });

  it('runs a woken job once when its wake-up was sent again while the first message was only late', async () => {
    // Prepare: the waiter's wake-up is on its way; it is overdue, and a tick sends it again
    const { worker, started, finishHolder, tick } = await waiterBehindRunningHolder();
    await finishHolder();
    const first = worker.queue.drain();
    worker.clock.advance(WOKEN_RESEND_MS + 1);
    await tick();
    const second = worker.queue.drain();

    // Act: both copies arrive
    await worker.deliver(first.map((message) => sqsRecord(message)));
    await worker.deliver(second.map((message) => sqsRecord(message)));

    // Assess: the second copy was a duplicate: nothing ran twice, no slot was taken or given twice
    expect(second.map((message) => message.job.id)).toEqual(['waiter']);
    expect(started).toEqual(['holder', 'waiter']);
    expect(worker.queue.sent).toEqual([]);
    expect(await slotsTaken(worker)).toBe(0);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('repairs the hand-off of a waker that died before carrying its woken job on: the next job to touch the task sends it once overdue, without a tick', async () => {
    // Prepare: the holder's invocation has time to carry the waiter on, but dies at the waiter's claim
    const { worker, started, finishHolder } = await waiterBehindRunningHolder([], { carryOn: true });
    const claimJob = worker.store.claimJob.bind(worker.store);
    worker.store.claimJob = (input) => (input.woken === undefined ? claimJob(input) : new Promise(() => {})); // never answers: died
    void finishHolder();
    await settle();
    const diedAt = worker.clock.now();
    worker.store.claimJob = claimJob;

    // Act: a newcomer joins just before the carried wake-up is overdue, another once it is
    worker.clock.set(diedAt + CARRIED_RESEND_MS - 1);
    await worker.deliver([recordFor('early-newcomer', 'limited')]);
    const sentEarly = worker.queue.sent.map((message) => message.job.id);
    worker.clock.set(diedAt + CARRIED_RESEND_MS);
    await worker.deliver([recordFor('newcomer', 'limited')]);
    const resent = worker.queue.sent.map((message) => [message.job.id, message.woken]);
    await deliverAll(worker);

    // Assess: the waiter kept its slot, was sent CARRIED_RESEND_MS after the hand-off and ran first
    expect(sentEarly).toEqual([]);
    expect(resent).toEqual([['waiter', true]]);
    expect(started.slice(0, 2)).toEqual(['holder', 'waiter']);
    expect(started.slice(2).sort()).toEqual(['early-newcomer', 'newcomer']);
    expect(await slotsTaken(worker)).toBe(0);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it("gives the slot back and wakes the line at once when the run's end could not read the line's head", async () => {
    // Prepare: the store fails the first read of the line's head
    const { worker, started, finishHolder } = await waiterBehindRunningHolder();
    const lineHead = worker.store.lineHead.bind(worker.store);
    worker.store.lineHead = async () => {
      worker.store.lineHead = lineHead;
      throw new Error('store unavailable');
    };

    // Act
    await finishHolder();
    const woken = worker.queue.sent.map((message) => message.job.id);
    await deliverAll(worker);

    // Assess: the waiter was woken without a tick
    expect(woken).toEqual(['waiter']);
    expect(started).toEqual(['holder', 'waiter']);
    expect(await slotsTaken(worker)).toBe(0);
  });

  it('passes the slot of a woken job that does not run (cancelled meanwhile) on to the next in line', async () => {
    // Prepare: waiter and next wait; waiter is cancelled while its slot is handed to it
    const { worker, started, finishHolder } = await waiterBehindRunningHolder(['next']);
    await worker.store.cancelJob('waiter', worker.clock.now(), worker.clock.now() + 60_000);

    // Act
    await finishHolder();
    const wokenFirst = worker.queue.sent.map((message) => message.job.id);
    await deliverAll(worker);

    // Assess
    expect(wokenFirst).toEqual(['waiter']);
    expect(started).toEqual(['holder', 'next']);
    expect(await slotsTaken(worker)).toBe(0);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it("sends at once a job's retry that a given-back slot's way back moved into its earlier attempt's woken entry", async () => {
    // Prepare: of task `limited` (2 slots), `waiter` and `next` were handed the slots of two runs that
    // ended; `next` then ran from a plain delivery and failed, and its retry joined the line behind
    // its own woken entry. Then `waiter` is cancelled while its wake-up travels.
    const worker = workerHarness({ limited: { maxRunningJobs: 2, handler: () => 'done' } });
    const { store, clock } = worker;
    const finish = (id: string) =>
      store.finishJob({ jobId: id, owner: `w-${id}`, result: SUCCESS, expiresAt: T0 + 60_000 });
    await store.claimJob(limitedClaim('h1', 2));
    await store.claimJob(limitedClaim('h2', 2));
    await store.joinLine({
      message: { job: jobRequest('waiter', { task: 'limited' }), attempt: 1 },
      now: T0,
    });
    await store.joinLine({ message: { job: jobRequest('next', { task: 'limited' }), attempt: 1 }, now: T0 });
    await finish('h1');
    await finish('h2');
    await store.joinLine({ message: { job: jobRequest('next', { task: 'limited' }), attempt: 2 }, now: T0 });
    await store.cancelJob('waiter', clock.now(), clock.now() + 60_000);

    // Act: waiter's woken delivery does not run and gives its slot back
    await worker.deliver([
      sqsRecord({ job: jobRequest('waiter', { task: 'limited' }), attempt: 1, woken: true }),
    ]);

    // Assess: next's retry was sent at once, woken, and nothing waits
    expect(
      worker.queue.sent.map((message) => [message.job.id, message.attempt, message.woken]),
    ).toContainEqual(['next', 2, true]);
    expect(await store.lineHead('limited')).toBeUndefined();
  });

  it('wakes the head at the next tick when a deploy raised the limit while a job waits', async () => {
    // Prepare: the tick knows the limit as deployed (2); the counter still holds the last claim's (1)
    const worker = workerHarness(
      { limited: { maxRunningJobs: 2, handler: () => undefined } },
      { taskLimits: new Map([['limited', { maxRunningJobs: 2, rateLimit: null }]]) },
    );
    await waitingWhenLimitRaised(worker);

    // Act
    const summary = await createTickHandler(() => worker.deps)();
    await deliverAll(worker);

    // Assess: the holder still holds its slot; the waiter took the new one and ran
    expect(summary.jobsWoken).toBe(1);
    expect(await worker.store.getJob('waiter', worker.clock.now())).toMatchObject({ status: 'success' });
    expect(await slotsTaken(worker)).toBe(1);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });

  it('starts the waiting job when the next job that touches the task ends, when a raised limit freed a slot', async () => {
    // Prepare: as above; no tick comes
    const started: string[] = [];
    const worker = workerHarness({
      limited: { maxRunningJobs: 2, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    await waitingWhenLimitRaised(worker);

    // Act: a newcomer arrives
    await worker.deliver([recordFor('newcomer', 'limited')]);
    await deliverAll(worker);

    // Assess: the newcomer took the free slot and handed it to the waiter as it ended
    expect(started).toEqual(['newcomer', 'waiter']);
    expect(await slotsTaken(worker)).toBe(1);
    expect(await worker.store.waitingCount('limited')).toBe(0);
  });
});

/**
 * `waiter` joined the line while `holder` (claimed by another worker) held the one slot of `limited`;
 * the task is now deployed with a higher limit, so a slot is free while `waiter` waits.
 */
async function waitingWhenLimitRaised(worker: Worker): Promise<void> {
  await worker.store.claimJob({
    job: JSON.parse(recordFor('holder', 'limited').body).job,
    attempt: 1,
    owner: 'someone',
    now: T0,
    leaseUntil: T0 + 60_000,
    concurrencyLimit: 1,
  });
  await worker.store.joinLine({ message: JSON.parse(recordFor('waiter', 'limited').body), now: T0 });
}
