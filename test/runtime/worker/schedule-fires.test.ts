import { describe, expect, it, vi } from 'vitest';
import type { JsonValue } from '../../../lib/core/json';
import { idAtPhase, SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

/** The schedule (of task `beat`): its chunks start at the grid's boundaries (T0 is one), so the fires a tick sends ahead are known. */
const BEAT = idAtPhase('beat');

interface Run {
  fireTime: number;
  payload: JsonValue;
  attempt: number;
}

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;

/**
 * The worker and the admin API on one in-memory store and queue (a tick only where a test runs one), with
 * a task `beat` that records its runs. Messages are delivered at their run time by `deliverDue`.
 */
function platform() {
  const runs: Run[] = [];
  const beat = {
    handler: (payload: JsonValue, { fireTime, attempt }: { fireTime: Date | null; attempt: number }) => {
      runs.push({ fireTime: (fireTime?.getTime() ?? 0) - T0, payload, attempt });
    },
  };
  const worker = adminAndWorker({ beat });
  return {
    ...worker,
    runs,
    /** The runs of the fire at `T0 + seconds`, as `attempt:v<payload v>`. */
    runsOf(seconds: number): string[] {
      return runs
        .filter((run) => run.fireTime === seconds * SECOND)
        .map((run) => `${run.attempt}:v${(run.payload as { v: number }).v}`);
    },
    /** The fire times (seconds after T0) that ran, with the payload's `v`. */
    ranAs(): string[] {
      return runs.map((run) => `${run.fireTime / SECOND}:v${(run.payload as { v: number }).v}`);
    },
    async errorTypeOf(seconds: number) {
      const job = await worker.store.getJob(`${BEAT}@${T0 + seconds * SECOND}`, worker.clock.now());
      return `${job?.status}:${job?.result?.error?.type}`;
    },
  };
}

/** `from`, `from + 10`, … `to` (seconds), each with payload version `v`. */
function fires(from: number, to: number, v: number): string[] {
  const list: string[] = [];
  for (let second = from; second <= to; second += 10) list.push(`${second}:v${v}`);
  return list;
}

/**
 * Every 10 s with payload v1: the +20 fire is claimed (its handler may have started) by a worker that
 * then vanishes, and a second later the payload becomes v2. `message` is the fire's own.
 */
async function vanishedBeforeAnUpdate() {
  const p = platform();
  await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const message = p.takeMessage(20);
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(message);
  p.clock.advance(SECOND);
  await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
  return { p, message };
}

describe('worker: fires already sent when their schedule changes', () => {
  it('cancels the sent fires of a removed schedule; the same id added again runs them once as its own', async () => {
    // Prepare: fires every 10 s; add_schedule sent +0 … +230 itself (its first two chunks)
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);

    // Act
    await p.admin({ action: 'remove_schedule', id: BEAT });
    await p.deliverDue(35);
    p.clock.advance(SECOND);
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 2 } });
    await p.deliverDue(200);

    // Assess
    expect(p.ranAs()).toEqual([...fires(0, 10, 1), ...fires(40, 200, 2)]);
    expect([await p.errorTypeOf(20), await p.errorTypeOf(30)]).toEqual([
      'cancelled:ScheduleRemoved',
      'cancelled:ScheduleRemoved',
    ]);
  });

  it('runs the fires sent before update_schedule as the new definition, each once', async () => {
    // Prepare
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);

    // Act: same trigger, new payload
    const updated = await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
    await p.deliverDue(200);

    // Assess: the record of a re-run fire says what ran
    expect(updated.dispatched_jobs).toBe(0);
    expect(p.ranAs()).toEqual([...fires(0, 10, 1), ...fires(20, 200, 2)]);
    const job = await p.store.getJob(`${BEAT}@${T0 + 20 * SECOND}`, p.clock.now());
    expect(job).toMatchObject({ status: 'success', payload: { v: 2 }, attempt: 1 });
  });

  it('runs the fires sent before an update of metadata and overrides with the new ones', async () => {
    // Prepare
    const p = platform();
    await p.admin({
      action: 'add_schedule',
      id: BEAT,
      task: 'beat',
      trigger: every10s,
      payload: { v: 1 },
      metadata: { tenant: 'acme' },
    });
    await p.deliverDue(15);

    // Act
    await p.admin({ action: 'update_schedule', id: BEAT, metadata: { tenant: 'globex' }, max_attempts: 1 });
    await p.deliverDue(25);

    // Assess: the fire sent before the update ran with the schedule's new metadata and overrides
    const before = await p.store.getJob(`${BEAT}@${T0 + 10 * SECOND}`, p.clock.now());
    const after = await p.store.getJob(`${BEAT}@${T0 + 20 * SECOND}`, p.clock.now());
    expect(before).toMatchObject({ status: 'success', metadata: { tenant: 'acme' } });
    expect(before).not.toHaveProperty('overrides');
    expect(after).toMatchObject({
      status: 'success',
      metadata: { tenant: 'globex' },
      overrides: { maxAttempts: 1 },
    });
  });

  it('after a new trigger, runs only its fire times; sent fires of the old one that it lacks are cancelled', async () => {
    // Prepare
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(5);

    // Act: every 15 s from T0 (+30, +60, +90, … are fire times of both)
    await p.admin({
      action: 'update_schedule',
      id: BEAT,
      trigger: { type: 'interval', seconds: 15, start_at: iso(T0) },
      payload: { v: 2 },
    });
    await p.deliverDue(200);

    // Assess
    const seconds = p.runs.map((run) => run.fireTime / SECOND);
    expect(seconds).toEqual([0, 15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195]);
    expect(
      p
        .ranAs()
        .slice(1)
        .every((run) => run.endsWith(':v2')),
    ).toBe(true);
    expect(await p.errorTypeOf(20)).toBe('cancelled:ScheduleChanged');
  });

  it('runs the fires after a pause and resume once; fires due while paused stay cancelled, even if late', async () => {
    // Prepare
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);

    // Act: the +30 message reaches a worker only after the resume
    await p.admin({ action: 'pause_schedule', id: BEAT });
    const late = p.takeMessage(30);
    await p.deliverDue(35);
    const resumed = await p.admin({ action: 'resume_schedule', id: BEAT });
    await p.deliver(late);
    await p.deliverDue(200);

    // Assess
    expect(resumed.dispatched_jobs).toBe(20);
    expect(p.ranAs()).toEqual([...fires(0, 10, 1), ...fires(40, 200, 1)]);
    expect([await p.errorTypeOf(20), await p.errorTypeOf(30)]).toEqual([
      'cancelled:SchedulePaused',
      'cancelled:ScheduleChanged',
    ]);
  });

  it('replays the fires a pause cancelled when resumed with replay_missed', async () => {
    // Prepare
    const p = platform();
    await p.admin({
      action: 'add_schedule',
      id: BEAT,
      task: 'beat',
      trigger: every10s,
      payload: { v: 1 },
      coalesce: 'all',
    });
    await p.deliverDue(15);
    await p.admin({ action: 'pause_schedule', id: BEAT });
    await p.deliverDue(35);

    // Act
    await p.admin({ action: 'resume_schedule', id: BEAT, replay_missed: true });
    await p.deliverDue(200);

    // Assess: +20 and +30 ran late, once, and the rest on time
    expect(p.ranAs()).toEqual(fires(0, 200, 1));
  });

  it('keeps a fire cancelled with cancel_job cancelled when the schedule changes afterwards', async () => {
    // Prepare
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.admin({ action: 'cancel_job', job_id: `${BEAT}@${T0 + 30 * SECOND}` });

    // Act
    await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
    await p.deliverDue(200);

    // Assess
    expect(p.ranAs()).toEqual([...fires(0, 20, 2), ...fires(40, 200, 2)]);
    expect(await p.errorTypeOf(30)).toBe('cancelled:undefined');
  });

  it('runs the fires a tick sent under the revision it read before an update as the new definition', async () => {
    // Prepare: the add sent 0..230 s itself; its chain's next note (240 s) is read by the tick at 90 s,
    // which reads the schedule just before an update of its payload lands
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(90);
    const read = p.store.readSchedules.bind(p.store);
    vi.spyOn(p.store, 'readSchedules').mockImplementationOnce(async (ids) => {
      const items = await read(ids);
      await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
      return items;
    });

    // Act
    const summary = await p.tick();
    const sentByTick = p.queue.sent.filter((message) => (message.job.fireTime ?? 0) >= T0 + 240 * SECOND);
    await p.deliverDue(350);

    // Assess: the tick sent 240..350 s under the old revision; each ran once, as the new definition
    expect(summary.jobsEnqueued).toBe(12);
    expect(sentByTick.map((message) => message.revision?.version)).toEqual(Array(12).fill(1));
    expect(p.ranAs()).toEqual([...fires(0, 90, 1), ...fires(100, 350, 2)]);
  });

  it('retries a fire whose worker vanished after claiming it as the same job when the schedule changed afterwards', async () => {
    // Prepare: the +20 fire is claimed (its handler may have started) by a worker that then vanishes
    const { p, message } = await vanishedBeforeAnUpdate();

    // Act: the message comes back after the run's lease ended and takes the run over
    p.clock.advance(60 * SECOND);
    await p.deliver(message);
    await p.deliverDue(200);

    // Assess: a retry of the run that started before the change (attempt 2, its payload), never a second attempt 1
    expect(p.runsOf(20)).toEqual(['2:v1']);
    const job = await p.store.getJob(`${BEAT}@${T0 + 20 * SECOND}`, p.clock.now());
    expect(job).toMatchObject({ status: 'success', attempt: 2 });
  });

  it('retries a fire as the same job again when the takeover that retried it vanished too', async () => {
    // Prepare: the +20 fire is claimed and its worker vanishes; the schedule is updated; the fire's
    // message takes the run over as attempt 2 (a retry of v1, claimed after the update) and its worker
    // vanishes too
    const { p, message } = await vanishedBeforeAnUpdate();
    p.clock.advance(60 * SECOND);
    const stored = await p.store.getJob(message.job.id, p.clock.now());
    if (!stored) throw new Error('not claimed');
    const now = p.clock.now();
    await p.store.claimJob({
      job: { ...message.job, payload: stored.payload },
      attempt: 2,
      owner: 'worker-vanished-again',
      now,
      leaseUntil: now + 30 * SECOND,
      reclaimCancelledFire: true,
    });

    // Act: the message comes back once more and takes over attempt 2
    p.clock.advance(60 * SECOND);
    await p.deliver(message);
    await p.deliverDue(300);

    // Assess: attempt 3 retries v1 as the first two did (the update came before attempt 2's claim, but
    // after the fire's first; before, attempt 3 was judged as a first start and ran v2)
    expect(p.runsOf(20)).toEqual(['3:v1']);
  });

  it('runs a fire as the new definition when its worker vanished after a claim made after the change', async () => {
    // Prepare: the update returned, then a worker claimed the +20 fire and vanished before reading the schedule
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);
    const message = p.takeMessage(20);
    await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
    p.clock.set(T0 + 20 * SECOND);
    await p.claimAndVanish(message);

    // Act
    p.clock.advance(60 * SECOND);
    await p.deliver(message);
    await p.deliverDue(200);

    // Assess: the old payload never runs after the update returned; the new one runs as attempt 2, as
    // attempt numbers never go back after a takeover (whose worker may have started the handler)
    expect(p.runsOf(20)).toEqual(['2:v2']);
  });

  it('retries a run of the current definition taken over by a message sent before the change', async () => {
    // Prepare: the update's fire message for +20 (a replacement) is claimed by a worker that vanishes;
    // the message sent before the update is still in the queue
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);
    const stale = p.takeMessage(20);
    await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
    p.clock.set(T0 + 20 * SECOND);
    await p.deliver(stale);
    const replacement = p.queue.drain().find((message) => message.job.fireTime === T0 + 20 * SECOND);
    await p.claimAndVanish(replacement);

    // Act: the stale message comes back (its delete was lost) after the run's lease ended
    p.clock.advance(60 * SECOND);
    await p.deliver(stale);
    await p.deliverDue(200);

    // Assess: the run is retried as what it was, the new definition
    expect(p.runsOf(20)).toEqual(['2:v2']);
  });

  it('retries a replacement run taken over by a stale message as the same job when the schedule changed after its claim', async () => {
    // Prepare: the replacement (v2) of the +20 fire is claimed by a worker that vanishes; then the
    // schedule is updated again (v3); the message sent as v1 is still in the queue
    const p = platform();
    await p.admin({ action: 'add_schedule', id: BEAT, task: 'beat', trigger: every10s, payload: { v: 1 } });
    await p.deliverDue(15);
    const stale = p.takeMessage(20);
    await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 2 } });
    p.clock.set(T0 + 20 * SECOND);
    await p.deliver(stale);
    const replacement = p.queue.drain().find((message) => message.job.fireTime === T0 + 20 * SECOND);
    await p.claimAndVanish(replacement);
    p.clock.advance(SECOND);
    await p.admin({ action: 'update_schedule', id: BEAT, payload: { v: 3 } });

    // Act: the stale message takes the run over (its revision says nothing of the run's)
    p.clock.advance(60 * SECOND);
    await p.deliver(stale);
    await p.deliverDue(200);

    // Assess: a retry of the run that may have started, never a second attempt 1
    expect(p.runsOf(20)).toEqual(['2:v2']);
  });
});
