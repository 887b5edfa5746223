import { describe, expect, it, vi } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { planDispatch, releaseDispatched } from '../../../lib/runtime/scheduling/dispatch';
import { dispatchDepsOf } from '../../../lib/runtime/scheduling/dispatch-deps';
import { advanceDispatched, needsLease } from '../../../lib/runtime/scheduling/dispatch-unleased';
import type { TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { SECOND, scheduleDefinition, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;
const at = (seconds: number) => ({ type: 'date', run_at: iso(T0 + seconds * SECOND) }) as const;

/**
 * The admin API and the worker on one in-memory store and queue (lookahead 90 s, no tick), with the
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
  it('removes a schedule whose trigger ended once the job of its last fire ended', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'once', task: 'beat', trigger: at(5) });

    const beforeItRan = await p.scheduleState('once');
    await p.deliverDue(10);

    expect(beforeItRan).toMatchObject({ finished: true, runs: 1, keep_finished: false });
    expect(p.fires).toEqual([5 * SECOND]);
    expect(await p.scheduleState('once')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual(['schedule.added', 'schedule.finished', 'schedule.removed:finished']);
  });

  it('keeps a finished schedule added with keep_finished', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'kept', task: 'beat', trigger: at(5), keep_finished: true });

    await p.deliverDue(10);

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
    await p.deliverDue(120);

    expect(added).toMatchObject({ dispatched_jobs: 3, schedule: { runs: 3, max_runs: 3, finished: true } });
    expect(afterTwo).toMatchObject({ finished: true, runs: 3 });
    expect(p.fires).toEqual([0, 10 * SECOND, 20 * SECOND]);
    expect(await p.scheduleState('thrice')).toBe('schedule_not_found');
    expect(p.scheduleEvents().filter((type) => type === 'schedule.removed:finished')).toHaveLength(1);
  });

  it('waits for the retries of the last fire before removing the schedule', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'flaky-once', task: 'flaky', trigger: at(5) });

    await p.deliver(p.queue.drain()[0] as JobMessage);
    const afterFirstAttempt = await p.scheduleState('flaky-once');
    await p.deliverDue(30);

    expect(afterFirstAttempt).toMatchObject({ finished: true });
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

  it('keeps the message when the removal fails, and its redelivery removes the schedule', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'retry-removal', task: 'beat', trigger: at(5) });
    const [message] = p.queue.drain();
    if (!message) throw new Error('no message');
    const removal = vi.spyOn(p.store, 'removeFinishedSchedule').mockRejectedValueOnce(new Error('throttled'));

    const first = await p.deliver(message);
    const stillThere = await p.scheduleState('retry-removal');
    const second = await p.deliver(message);

    expect(first.batchItemFailures).toHaveLength(1);
    expect(stillThere).toMatchObject({ finished: true });
    expect(second.batchItemFailures).toEqual([]);
    expect(removal).toHaveBeenCalledTimes(2);
    expect(p.fires).toEqual([5 * SECOND]);
    expect(await p.scheduleState('retry-removal')).toBe('schedule_not_found');
  });

  it('cleans up when the last job ended before the tick that sent it released the schedule', async () => {
    const p = platform();
    await p.store.addSchedule({
      schedule: scheduleDefinition('quick', { task: 'beat', trigger: at(0) }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    const leased = await p.store.leaseSchedule('quick', 'slow-tick', T0, 60 * SECOND);
    if (!leased) throw new Error('not leased');
    const planned = planDispatch(dispatchDepsOf(p.deps), leased);
    const [message] = planned.messages;
    if (!message) throw new Error('no message');

    const beforeRelease = await p.deliver(message);
    await releaseDispatched(dispatchDepsOf(p.deps), planned, new Set(), 'slow-tick');
    const afterRelease = await p.deliver(message);

    expect(message.finalFire).toBe(true);
    expect(beforeRelease.batchItemFailures).toHaveLength(1);
    expect(p.queue.visibilityChanges).toEqual([{ receiptHandle: expect.any(String), seconds: 5 }]);
    expect(afterRelease.batchItemFailures).toEqual([]);
    expect(p.fires).toEqual([0]);
    expect(await p.scheduleState('quick')).toBe('schedule_not_found');
  });

  it('cleans up when the last job ended before the lease-less tick that sent it moved the schedule on', async () => {
    const p = platform();
    await p.store.addSchedule({
      schedule: scheduleDefinition('quick', { task: 'beat', trigger: at(1) }),
      nextFireAt: T0 + SECOND,
      conflictPolicy: 'exception',
      now: T0,
    });
    const [read] = await p.store.readDueSchedules({ now: T0, dueBefore: T0 + 90 * SECOND, limit: 10 });
    if (!read) throw new Error('not read');
    const planned = planDispatch(dispatchDepsOf(p.deps), read);
    const [message] = planned.messages;
    if (!message) throw new Error('no message');

    const beforeAdvance = await p.deliver(message);
    await advanceDispatched(dispatchDepsOf(p.deps), planned, new Set());
    const afterAdvance = await p.deliver(message);

    expect(needsLease(planned)).toBe(false);
    expect(message.finalFire).toBe(true);
    expect(beforeAdvance.batchItemFailures).toHaveLength(1);
    expect(p.queue.visibilityChanges).toEqual([{ receiptHandle: expect.any(String), seconds: 1 }]);
    expect(afterAdvance.batchItemFailures).toEqual([]);
    expect(p.fires).toEqual([1000]);
    expect(await p.scheduleState('quick')).toBe('schedule_not_found');
  });

  it('finishes a schedule whose max_runs is lowered to its runs; the fires already sent still run, then it is removed', async () => {
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 'cut', task: 'beat', trigger: every10s });
    await p.deliverDue(25);

    const updated = await p.admin({ action: 'update_schedule', id: 'cut', max_runs: 1 });
    await p.deliverDue(200);

    expect(updated).toMatchObject({
      schedule: { finished: true, runs: 10, max_runs: 1, next_fire_time: null },
    });
    expect(p.fires).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90].map((seconds) => seconds * SECOND));
    expect(await p.scheduleState('cut')).toBe('schedule_not_found');
    expect(p.scheduleEvents()).toEqual([
      'schedule.added',
      'schedule.updated',
      'schedule.finished',
      'schedule.removed:finished',
    ]);
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
    await p.admin({ action: 'add_schedule', id: 'manual', task: 'beat', trigger: at(600), max_runs: 1 });

    await p.admin({ action: 'run_schedule_now', id: 'manual' });
    await p.deliverDue(5);

    expect(await p.scheduleState('manual')).toMatchObject({ runs: 0, finished: false });
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

    expect(resumed.dispatched_jobs).toBe(1);
    expect(afterResume).toMatchObject({ id: 'once', nextFireAt: null });
    expect(fires).toEqual([10]);
    expect(await p.store.getJob(lastFire, p.clock.now())).toMatchObject({ status: 'success' });
    expect(await p.store.getSchedule('once')).toBeUndefined();
  });
});
