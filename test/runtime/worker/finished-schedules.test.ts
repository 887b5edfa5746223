import { describe, expect, it, vi } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { idAtPhase, SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

/** A schedule whose chunks start at the grid's boundaries (T0 is one): the runs its chain sent ahead are known. */
const NOTED = idAtPhase('noted');

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;
const at = (seconds: number) => ({ type: 'date', run_at: iso(T0 + seconds * SECOND) }) as const;

/**
 * The admin API and the worker on one in-memory store and queue (a tick only in `runUntil`), with the
 * tasks `beat` (records its fires) and `flaky` (its first attempt of each job fails, retried 1 s later).
 */
function platform() {
  const fires: number[] = [];
  const attempts = new Map<string, number>();
  // biome-ignore lint/suspicious/noExplicitAny: the test tasks take any payload.
  const tasks: Record<string, TaskOptions<any, any>> = {
    beat: { handler: (_payload, { fireTime }) => void fires.push((fireTime?.getTime() ?? 0) - T0) },
    flaky: {
      retry: { maxAttempts: 2, backoffSeconds: 1, maxBackoffSeconds: 1 },
      handler: (_payload, { jobId }) => {
        attempts.set(jobId, (attempts.get(jobId) ?? 0) + 1);
        if (attempts.get(jobId) === 1) throw new Error('first attempt fails');
      },
    },
  };
  const worker = adminAndWorker(tasks);
  const { api } = worker;
  return {
    ...worker,
    fires,
    /** The schedule as `get_schedule` answers it, or the error code. */
    async scheduleState(id: string) {
      const response = await api({ action: 'get_schedule', id });
      return response.ok
        ? (response.result as { schedule: Record<string, unknown> }).schedule
        : response.error.code;
    },
    /** The types of the schedule events published (job events left out). */
    scheduleEvents(): string[] {
      return worker.publisher.events
        .filter((event) => event.type.startsWith('schedule.'))
        .map((event) => ('reason' in event && event.reason ? `${event.type}:${event.reason}` : event.type));
    },
  };
}

describe('finished schedules', () => {
  it('removes a schedule whose trigger ended once the job of its last fire ended, when its closing note is read', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'once', task: 'beat', trigger: at(5) });

    const beforeItRan = await p.scheduleState('once');
    await p.deliverDue(10);
    const afterItRan = await p.scheduleState('once');
    await p.readClosingNotes(5);

    expect(beforeItRan).toMatchObject({ finished: true, runs: 1, keep_finished: false });
    expect(p.fires).toEqual([5 * SECOND]);
    // The job's end does not remove it (ADR 0011): its closing note does, off the fire's path.
    expect(afterItRan).toMatchObject({ finished: true });
    expect(await p.scheduleState('once')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual(['schedule.added', 'schedule.finished', 'schedule.removed:finished']);
  });

  it('keeps a finished schedule added with keep_finished', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'kept', task: 'beat', trigger: at(5), keep_finished: true });

    await p.readClosingNotes(5);

    expect(await p.scheduleState('kept')).toMatchObject({ finished: true, runs: 1, next_fire_time: null });
    expect(p.scheduleEvents()).toEqual(['schedule.added', 'schedule.finished']);
  });

  it('runs max_runs fires, and removes the schedule after the last one, not after an earlier one', async () => {
    const p = platform();
    const added = await p.admin({
      action: 'add_schedule',
      id: 'thrice',
      task: 'beat',
      trigger: every10s,
      max_runs: 3,
    });

    await p.deliverDue(15);
    const afterTwo = await p.scheduleState('thrice');
    await p.readClosingNotes(20);

    expect(added).toMatchObject({ dispatched_jobs: 3, schedule: { runs: 3, max_runs: 3, finished: true } });
    expect(afterTwo).toMatchObject({ finished: true, runs: 3 });
    expect(p.fires).toEqual([0, 10 * SECOND, 20 * SECOND]);
    expect(await p.scheduleState('thrice')).toBe('schedule_not_found');
    expect(p.scheduleEvents().filter((type) => type === 'schedule.removed:finished')).toHaveLength(1);
  });

  it('waits for the retries of the last fire before removing the schedule', async () => {
    // Prepare: the last fire's first attempt fails; its retry is held back past the closing note's read
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'flaky-once', task: 'flaky', trigger: at(5) });
    await p.deliver(p.queue.drain()[0] as JobMessage);
    const retries = p.queue.drain();

    // Act
    await p.readClosingNotes(5);
    const whileRetrying = await p.scheduleState('flaky-once');
    for (const retry of retries) await p.deliver(retry);
    await p.runUntil(1_200);

    // Assess: the closing note, read again later, removed it once the retry had ended
    expect(retries.map((message) => message.attempt)).toEqual([2]);
    expect(whileRetrying).toMatchObject({ finished: true });
    expect((await p.admin({ action: 'get_job', job_id: `flaky-once@${T0 + 5 * SECOND}` })).job).toMatchObject(
      {
        status: 'success',
        attempt: 2,
      },
    );
    expect(await p.scheduleState('flaky-once')).toBe('schedule_not_found');
  });

  it('removes it when its last fire is cancelled, and the cancelled message changes nothing after', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'called-off', task: 'beat', trigger: at(60) });

    await p.admin({ action: 'cancel_job', job_id: `called-off@${T0 + 60 * SECOND}` });
    const afterCancel = await p.scheduleState('called-off');
    await p.deliverDue(90);

    expect(afterCancel).toBe('schedule_not_found');
    expect(p.fires).toEqual([]);
    expect(p.scheduleEvents()).toEqual(['schedule.added', 'schedule.finished', 'schedule.removed:finished']);
  });

  it('removes a kept finished schedule once keep_finished is cleared while its last fire still runs', async () => {
    // Prepare: the last fire's first attempt fails; its retry waits while the update is made
    const p = platform();
    await p.admin({
      action: 'add_schedule',
      id: 'let-go',
      task: 'flaky',
      trigger: at(5),
      keep_finished: true,
    });
    await p.deliver(p.queue.drain()[0] as JobMessage);
    const retries = p.queue.drain();

    // Act
    const updated = await p.admin({ action: 'update_schedule', id: 'let-go', keep_finished: false });
    for (const retry of retries) await p.deliver(retry);
    await p.readClosingNotes(5);

    // Assess: not removed at the update (its job had not ended), but by the closing note the update left
    expect(updated).toMatchObject({ schedule: { finished: true, keep_finished: false } });
    expect(await p.scheduleState('let-go')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual([
      'schedule.added',
      'schedule.finished',
      'schedule.updated',
      'schedule.removed:finished',
    ]);
  });

  it('reads the closing note again when the removal fails, and removes the schedule then', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'retry-removal', task: 'beat', trigger: at(5) });
    const removal = vi.spyOn(p.store, 'removeFinishedSchedule').mockRejectedValueOnce(new Error('throttled'));

    for (let seconds = 30; removal.mock.calls.length === 0; seconds += 30) await p.runUntil(seconds);
    const stillThere = await p.scheduleState('retry-removal');
    await p.runUntil(600);

    expect(stillThere).toMatchObject({ finished: true });
    expect(removal).toHaveBeenCalledTimes(2);
    expect(p.fires).toEqual([5 * SECOND]);
    expect(await p.scheduleState('retry-removal')).toBe('schedule_not_found');
  });

  it('removes the schedule when the last fire a tick sent ends before that tick is done: it was finished first', async () => {
    // Prepare: a one-off fire 30 minutes ahead, sent by the tick that reads its note (14 minutes early);
    // its job runs and ends the moment it is sent, before the tick goes on
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'quick', task: 'beat', trigger: at(1_800) });
    const send = p.queue.send.bind(p.queue);
    const outcomes: { batchItemFailures: unknown[] }[] = [];
    vi.spyOn(p.queue, 'send').mockImplementation(async (messages) => {
      const sent = await send(messages);
      for (const message of p.queue.drain()) outcomes.push(await p.deliver(message));
      return sent;
    });

    // Act
    await p.readClosingNotes(1_800);

    // Assess: one delivery ran it, without waiting for anything; its closing note removed the schedule
    expect(p.fires).toEqual([1_800 * SECOND]);
    expect(outcomes).toEqual([{ batchItemFailures: [] }]);
    expect(p.queue.visibilityChanges).toEqual([]);
    expect(await p.scheduleState('quick')).toBe('schedule_not_found');
    expect(p.scheduleEvents().sort()).toEqual([
      'schedule.added',
      'schedule.finished',
      'schedule.removed:finished',
    ]);
  });

  it('finishes a schedule capped below the fires it ran: the fires it sent ahead are cancelled, and it is removed', async () => {
    // Prepare: the add sent 0..230 s; 0, 10 and 20 s ran
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'cut', task: 'beat', trigger: every10s });
    await p.deliverDue(25);

    // Act
    const updated = await p.admin({ action: 'update_schedule', id: 'cut', max_runs: 1 });
    await p.readClosingNotes(240);

    // Assess: its count starts from the fires due before the change (3), which the cap is below
    expect(updated).toMatchObject({
      schedule: { finished: true, runs: 3, max_runs: 1, next_fire_time: null },
    });
    expect(p.fires).toEqual([0, 10, 20].map((seconds) => seconds * SECOND));
    expect(await p.store.getJob(`cut@${T0 + 30 * SECOND}`, p.clock.now())).toMatchObject({
      status: 'cancelled',
    });
    expect(await p.scheduleState('cut')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual([
      'schedule.added',
      'schedule.updated',
      'schedule.finished',
      'schedule.removed:finished',
    ]);
  });

  it('leaves an active schedule alone when a retried fire ends, though its item says where its chain started', async () => {
    // Prepare: every 10 s from T0, a task that fails each fire's first attempt; the item keeps where its
    // chain started (next 0 s, no runs) while its note moves on
    const p = platform();
    await p.admin({ action: 'add_schedule', id: NOTED, task: 'flaky', trigger: every10s });
    const first = p.takeMessage(0);

    // Act: the first fire fails, its retry succeeds; the next fire comes up as usual
    await p.deliver(first);
    const [retry] = p.queue.sent.filter((message) => message.attempt === 2);
    if (!retry) throw new Error('no retry sent');
    p.queue.sent.splice(p.queue.sent.indexOf(retry), 1);
    const retried = await p.deliver(retry);
    await p.deliverDue(15);

    // Assess
    expect(retried.batchItemFailures).toEqual([]);
    expect(p.queue.visibilityChanges).toEqual([]);
    expect(await p.store.getSchedule(NOTED)).toMatchObject({ nextFireAt: T0, runs: 0 });
    expect(await p.scheduleState(NOTED)).toMatchObject({ finished: false, runs: 24 });
    expect(await p.admin({ action: 'get_job', job_id: `${NOTED}@${T0}` })).toMatchObject({
      job: { status: 'success', attempt: 2 },
    });
  });

  it('removes a schedule that finished while paused when it is resumed', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'held', task: 'beat', trigger: at(5) });
    await p.admin({ action: 'pause_schedule', id: 'held' });
    await p.deliverDue(10);

    const whilePaused = await p.scheduleState('held');
    await p.admin({ action: 'resume_schedule', id: 'held' });

    expect(whilePaused).toMatchObject({ paused: true });
    expect(p.fires).toEqual([]);
    expect(await p.scheduleState('held')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual([
      'schedule.added',
      'schedule.finished',
      'schedule.paused',
      'schedule.resumed',
      'schedule.removed:finished',
    ]);
  });

  it('does not count run_schedule_now as a fire', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'manual', task: 'beat', trigger: at(3_600), max_runs: 1 });

    await p.admin({ action: 'run_schedule_now', id: 'manual' });
    await p.deliverDue(5);

    expect(p.fires).toHaveLength(1);
    expect(await p.scheduleState('manual')).toMatchObject({ runs: 0, finished: false });
    expect(await p.store.getSchedule('manual')).toMatchObject({ startedRuns: 0 });
  });
});

describe('a finished schedule whose last fire this very call sends again', () => {
  it('stays until that fire has run when resume_schedule replays the fire its pause cancelled', async () => {
    const fires: number[] = [];
    const p = adminAndWorker({
      beat: {
        handler: (_payload, { fireTime }) => void fires.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
      },
    });
    const lastFire = `once@${T0 + 10 * SECOND}`;
    await p.admin({
      action: 'add_schedule',
      id: 'once',
      task: 'beat',
      trigger: { type: 'date', run_at: new Date(T0 + 10 * SECOND).toISOString() },
    });
    p.clock.set(T0 + 5 * SECOND);
    await p.admin({ action: 'pause_schedule', id: 'once' });
    await p.deliverDue(10); // the fire comes up while paused: cancelled (SchedulePaused)
    p.clock.set(T0 + 15 * SECOND);

    const resumed = await p.admin({ action: 'resume_schedule', id: 'once', replay_missed: true });
    const afterResume = await p.store.getSchedule('once');
    await p.deliverDue(30);
    const afterItRan = await p.store.getSchedule('once');
    await p.readClosingNotes(30);

    expect(resumed.dispatched_jobs).toBe(1);
    expect(afterResume).toMatchObject({ id: 'once', nextFireAt: null });
    expect(fires).toEqual([10]);
    expect(await p.store.getJob(lastFire, p.clock.now())).toMatchObject({ status: 'success' });
    expect(afterItRan).toMatchObject({ nextFireAt: null });
    expect(await p.store.getSchedule('once')).toBeUndefined();
  });
});
