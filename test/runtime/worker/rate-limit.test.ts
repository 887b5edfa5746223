import { describe, expect, it, vi } from 'vitest';
import { type RateLimit, startIntervalMs } from '../../../lib/core/model/rate-limit';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { limitedClaim, SUCCESS } from '../../adapters/store-fixtures';
import { jobRequest, SECOND, sqsRecord, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import { recordFor, startRecordingWorker, workerHarness } from './harness';

const RATE = { max: 1, perSeconds: 10 };
const INTERVAL = startIntervalMs(RATE);

describe('worker: rate-limited tasks', () => {
  it('starts one job per interval; the others wait in line and one is woken, delayed, for each next start', async () => {
    // Prepare
    const { worker, started } = startRecordingWorker('rated', { rateLimit: RATE });

    // Act: three jobs come at once; then whatever the queue holds is delivered when it is due
    await worker.deliver([recordFor('a', 'rated', { runAt: T0 - 3 })]);
    await worker.deliver([recordFor('b', 'rated', { runAt: T0 - 2 })]);
    await worker.deliver([recordFor('c', 'rated', { runAt: T0 - 1 })]);
    const firstWake = worker.queue.sent.map((message) => [message.job.id, message.delaySeconds]);
    const waitingAfterArrival = await worker.store.waitingCount('rated');
    const headAfterArrival = (await worker.store.lineHead('rated'))?.message.job.id;
    for (let round = 0; round < 2; round++) {
      const [message] = worker.queue.sent;
      worker.clock.advance((message?.delaySeconds ?? 0) * 1000);
      await worker.deliver(worker.queuedRecords());
    }

    // Assess: a at once, b and c each one interval after the one before, woken with the delay that
    // brings them back in the second before their start (the worker waits the rest)
    expect(firstWake).toEqual([['b', Math.floor((INTERVAL - 100) / 1000)]]);
    // b, woken for the next start, waits until it starts; c is the line's head
    expect(waitingAfterArrival).toBe(2);
    expect(headAfterArrival).toBe('c');
    expect(started.map(([id]) => id)).toEqual(['a', 'b', 'c']);
    const [[, a], [, b], [, c]] = started as [[string, number], [string, number], [string, number]];
    expect(b - a).toBeGreaterThanOrEqual(INTERVAL);
    expect(c - b).toBeGreaterThanOrEqual(INTERVAL);
    expect(c - b).toBeLessThan(INTERVAL + 1_000);
    expect(await worker.store.waitingCount('rated')).toBe(0);
    expect(worker.queue.sent).toEqual([]);
  });

  it('lets a job woken for a start that arrives in the second before it wait for it, without passing its wake-up on', async () => {
    // Prepare: a started; b was refused, joined the line and was woken for the next start
    const { worker, started } = startRecordingWorker('rated', { rateLimit: RATE });
    await worker.deliver([recordFor('a', 'rated', { runAt: T0 - 2 })]);
    await worker.deliver([recordFor('b', 'rated', { runAt: T0 - 1 })]);
    const nextStartAt = (await worker.store.taskSlots('rated'))?.nextStartAt ?? 0;
    const releases = vi.spyOn(worker.store, 'releaseWoken');
    const joins = vi.spyOn(worker.store, 'joinLine');

    // Act: b's wake-up comes half a second before its start
    worker.clock.set(nextStartAt - 500);
    await worker.deliver(worker.queuedRecords());

    // Assess: b started at its start; its wake-up was not given back, and nothing more was sent
    expect(started.map(([id]) => id)).toEqual(['a', 'b']);
    expect(started[1]?.[1]).toBeGreaterThanOrEqual(nextStartAt);
    expect(started[1]?.[1]).toBeLessThan(nextStartAt + 1_000);
    expect(releases).not.toHaveBeenCalled();
    expect(joins).not.toHaveBeenCalled();
    expect(await worker.store.waitingCount('rated')).toBe(0);
  });

  it("takes over a stalled run under its stored task's rate, though its message names another task", async () => {
    // Prepare: 'other' took the rate's start; job 'moved' ran as 'rated' (its schedule moved it there
    // after this message was sent as 'free') and its worker vanished
    const started: string[] = [];
    const worker = workerHarness({
      free: { handler: (_payload, { jobId }) => void started.push(`free:${jobId}`) },
      rated: { rateLimit: RATE, handler: (_payload, { jobId }) => void started.push(`rated:${jobId}`) },
    });
    await worker.deliver([recordFor('other', 'rated')]);
    const now = worker.clock.now();
    await worker.store.claimJob({
      job: jobRequest('moved', { task: 'rated' }),
      attempt: 1,
      owner: 'vanished',
      now,
      leaseUntil: now + 1_000,
    });
    worker.clock.advance(2_000);

    // Act: the message sent before the move comes back
    await worker.deliver([recordFor('moved', 'free')]);

    // Assess: the takeover waits for the rate's next start instead of starting at once
    expect(started).toEqual(['rated:other']);
    expect(await worker.store.waitingCount('rated')).toBe(1);
  });

  it('takes its start again when its process stalled after the claim, so a late handler never starts off its pace', async () => {
    // Prepare: 5 per second; the process stalls 500 ms right after the claim
    const rate = { max: 5, perSeconds: 1 };
    const starts: number[] = [];
    const worker = workerHarness({
      rated: { rateLimit: rate, handler: () => void starts.push(worker.clock.now()) },
    });
    const claim = worker.store.claimJob.bind(worker.store);
    worker.store.claimJob = async (input) => {
      const outcome = await claim(input);
      worker.clock.advance(500);
      return outcome;
    };

    // Act
    await worker.deliver([recordFor('a', 'rated')]);

    // Assess: not at +500 ms (400 ms past its planned start, inside the next job's interval) but on a
    // start taken again at +500 ms, aligned like any other
    const slots = await worker.store.taskSlots('rated');
    expect(starts).toEqual([T0 + 600]);
    expect(slots?.nextStartAt).toBe(T0 + 500 + startIntervalMs(rate));
  });

  it("aligns a fire's start after its schedule check, so a slow schedule read never starts a handler off its pace", async () => {
    // Prepare: 5 per second; a fire whose schedule read takes 500 ms
    const rate = { max: 5, perSeconds: 1 };
    const starts: number[] = [];
    const h = adminAndWorker({ rated: { rateLimit: rate, handler: () => void starts.push(h.clock.now()) } });
    await h.admin({
      action: 'add_schedule',
      id: 'paced',
      task: 'rated',
      trigger: { type: 'interval', seconds: 60, start_at: new Date(T0 + 10_000).toISOString() },
    });
    const read = h.store.getSchedule.bind(h.store);
    h.store.getSchedule = async (id) => {
      const schedule = await read(id);
      h.clock.advance(500);
      return schedule;
    };

    // Act: the fire is claimed at +10 s
    await h.deliverDue(10);

    // Assess: its start was taken again once the check was done, and the handler started aligned on that
    const slots = await h.store.taskSlots('rated');
    expect(starts).toEqual([T0 + 10_600]);
    expect(slots?.nextStartAt).toBe(T0 + 10_500 + startIntervalMs(rate));
  });

  it('lets the tick wake a line whose wake-up was lost', async () => {
    // Prepare: b waits in line, and the wake-up sent for it is lost
    const started: string[] = [];
    const worker = workerHarness({
      rated: { rateLimit: RATE, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    await worker.deliver([recordFor('a', 'rated')]);
    await worker.deliver([recordFor('b', 'rated')]);
    worker.queue.drain();
    await worker.store.joinLine({ message: { job: recordJob('b'), attempt: 1 }, now: worker.clock.now() });

    // Act: ticks after the next start time
    worker.clock.advance(INTERVAL + 1_000);
    const tick = await createTickHandler(() => worker.deps)();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(tick.jobsWoken).toBe(1);
    expect(started).toEqual(['a', 'b']);
  });
});

describe('worker: tasks with a slot limit and a rate', () => {
  /**
   * Of task `limited` (one slot, `rate`), `holder` started at T0; `first` and `second` wait in line. One
   * second later `holder` ends and hands its slot to `first`, whose woken message is returned.
   */
  async function slotHandedBeforeTheStart(rate: RateLimit) {
    const recording = startRecordingWorker('limited', { maxRunningJobs: 1, rateLimit: rate });
    const { store, clock } = recording.worker;
    await store.claimJob({ ...limitedClaim('holder', 1, T0), rateLimit: rate });
    await recording.worker.deliver([recordFor('first', 'limited', { runAt: T0 - 2 })]);
    await recording.worker.deliver([recordFor('second', 'limited', { runAt: T0 - 1 })]);
    clock.advance(1_000);
    const { woken } = await store.finishJob({
      jobId: 'holder',
      owner: 'w-holder',
      result: { ...SUCCESS, startedAt: T0, finishedAt: clock.now() },
      expiresAt: T0 + 60_000,
      heldSlot: { task: 'limited', carriedOn: false },
    });
    if (!woken) throw new Error('the slot went to nobody');
    return { ...recording, woken, wokenRecord: sqsRecord({ ...woken.message, woken: true }) };
  }

  it('a woken job the rate refuses keeps its slot for the next start instead of handing it down the line', async () => {
    const { worker, started, woken, wokenRecord } = await slotHandedBeforeTheStart(RATE);
    const { store, clock, queue } = worker;

    // Act: first's wake-up arrives nine seconds before the next start
    await worker.deliver([wokenRecord]);
    const sentWhileEarly = queue.sent.map((message) => [message.job.id, message.delaySeconds, message.woken]);
    const firstStillWoken = await store.isWaiting('limited', woken.position);
    const headWhileEarly = (await store.lineHead('limited'))?.message.job.id;
    for (let round = 0; round < 3 && queue.sent.length > 0; round++) {
      clock.advance(Math.max(...queue.sent.map((message) => message.delaySeconds ?? 0)) * 1000);
      await worker.deliver(worker.queuedRecords());
    }

    // Assess: first came back for the start with its slot, and second was not woken meanwhile (before,
    // the slot went to second at once, which the rate refused too, and back: a round per job in line)
    expect(sentWhileEarly).toEqual([['first', 9, true]]);
    expect(firstStillWoken).toBe(true);
    expect(headWhileEarly).toBe('second');
    expect(started).toEqual([
      ['first', T0 + INTERVAL + 100],
      ['second', T0 + 2 * INTERVAL + 100],
    ]);
    expect(await worker.store.waitingCount('limited')).toBe(0);
    expect((await store.taskSlots('limited'))?.running).toBe(0);
  });

  it('waits for a start further off than the queue can delay in hops of the longest delay, slot kept', async () => {
    const { worker, started, woken, wokenRecord } = await slotHandedBeforeTheStart({
      max: 1,
      perSeconds: 3600,
    });
    const { store, queue } = worker;

    // Act: first's wake-up arrives an hour before the next start
    await worker.deliver([wokenRecord]);

    // Assess: first comes back in 15 minutes, still holding the slot; second was not woken
    expect(queue.sent.map((message) => [message.job.id, message.delaySeconds, message.woken])).toEqual([
      ['first', 900, true],
    ]);
    expect(await store.isWaiting('limited', woken.position)).toBe(true);
    expect((await store.lineHead('limited'))?.message.job.id).toBe('second');
    expect((await store.taskSlots('limited'))?.running).toBe(1);
    expect(started).toEqual([]);
  });
  it('sends a woken fire that goes on as its taken-over attempt back as the copy its entry carries', async () => {
    // Prepare: of task `limited` (one slot, one start per 10 s), the fire at +10 s was taken over as
    // attempt 2 and cancelled by its check (reclaimably); its attempt-1 copy waits in line behind
    // `holder`, which took the next start and hands its slot to that copy a second later
    const started: [number, number][] = [];
    const p = adminAndWorker({
      limited: {
        maxRunningJobs: 1,
        rateLimit: RATE,
        handler: (_payload, { attempt }) => void started.push([attempt, p.clock.now()]),
      },
    });
    const { store, clock, queue } = p;
    const trigger = { type: 'interval', seconds: 3600, start_at: new Date(T0 + 10 * SECOND).toISOString() };
    await p.admin({ action: 'add_schedule', id: 'beat', task: 'limited', trigger, payload: {} });
    const { delaySeconds: _, ...fire } = p.takeMessage(10);
    clock.set(T0 + 10 * SECOND);
    const takeover = { owner: 'w-taker', now: clock.now(), leaseUntil: clock.now() + 60 * SECOND };
    await store.claimJob({ job: fire.job, attempt: 2, ...takeover, concurrencyLimit: 1, rateLimit: RATE });
    await store.finishJob({
      jobId: fire.job.id,
      owner: 'w-taker',
      result: { outcome: 'cancelled', startedAt: clock.now(), finishedAt: clock.now(), attempt: 2 },
      expiresAt: clock.now() + 60 * SECOND,
      reclaimable: true,
      heldSlot: { task: 'limited', carriedOn: false },
    });
    const nextStart = async () => (await store.taskSlots('limited'))?.nextStartAt ?? 0;
    clock.set(await nextStart());
    const holderStartedAt = clock.now();
    await store.claimJob({ ...limitedClaim('holder', 1, holderStartedAt), rateLimit: RATE });
    await store.joinLine({ message: fire, now: clock.now() });
    const startAfterHolder = await nextStart();
    clock.advance(SECOND);
    const { woken } = await store.finishJob({
      jobId: 'holder',
      owner: 'w-holder',
      result: { ...SUCCESS, startedAt: holderStartedAt, finishedAt: clock.now() },
      expiresAt: clock.now() + 60 * SECOND,
      heldSlot: { task: 'limited', carriedOn: false },
    });
    if (!woken) throw new Error('the slot went to nobody');

    // Act: the woken copy goes on as attempt 2, which the rate refuses until the start after holder's;
    // then its message comes back
    await p.deliver({ ...woken.message, woken: true, delaySeconds: 0 });
    const sentBack = queue.sent.map((message) => [message.attempt, message.delaySeconds, message.woken]);
    clock.advance((queue.sent[0]?.delaySeconds ?? 0) * 1000);
    await p.deliver(queue.drain()[0] as JobMessage);

    // Assess: sent back as the copy its entry carries, so that its claim finds the entry and its slot:
    // attempt 2 runs at the start (sent as attempt 2, it missed the entry, which kept the slot)
    expect(sentBack).toEqual([[1, Math.floor((startAfterHolder - holderStartedAt - SECOND) / 1000), true]]);
    const [[attempt, startedAt] = []] = started;
    expect(started).toHaveLength(1);
    expect(attempt).toBe(2);
    expect(startedAt).toBeGreaterThanOrEqual(startAfterHolder);
    expect(startedAt).toBeLessThan(startAfterHolder + SECOND);
    expect(await store.waitingCount('limited')).toBe(0);
    expect((await store.taskSlots('limited'))?.running).toBe(0);
  });
});

describe('worker: rate-limited tasks with starts further apart than the queue can delay', () => {
  it('leaves the wake-up to a tick once the next start is within 15 minutes', async () => {
    // Prepare: one start per hour; b comes right after a
    const started: string[] = [];
    const worker = workerHarness({
      hourly: {
        rateLimit: { max: 1, perSeconds: 3600 },
        handler: (_payload, { jobId }) => void started.push(jobId),
      },
    });
    const tick = createTickHandler(() => worker.deps);
    await worker.deliver([recordFor('a', 'hourly')]);
    await worker.deliver([recordFor('b', 'hourly')]);
    const sentAtOnce = worker.queue.sent.length;

    // Act: a tick 50 minutes later wakes b with the delay to its start time
    worker.clock.advance(50 * 60_000);
    const woken = await tick();
    const [wake] = worker.queue.sent;
    worker.clock.advance((wake?.delaySeconds ?? 0) * 1000);
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(sentAtOnce).toBe(0);
    expect(woken.jobsWoken).toBe(1);
    expect(wake?.delaySeconds).toBeGreaterThan(500);
    expect(started).toEqual(['a', 'b']);
  });
});

function recordJob(id: string) {
  return JSON.parse(recordFor(id, 'rated').body).job;
}
