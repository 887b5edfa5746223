import { describe, expect, it } from 'vitest';
import { createHarness, errorOf, everyMinute, MINUTE, nightlyBerlin, T0 } from './support/harness';

const addNightly = {
  action: 'add_schedule',
  id: 'nightly',
  task: 'send-report',
  trigger: nightlyBerlin,
  payload: { team: 'ops' },
};

const types = (h: ReturnType<typeof createHarness>) => h.events.events.map((event) => event.type);

describe('admin API: lifecycle events', () => {
  it('publishes each schedule change once it is written, with the schedule as it is after it', async () => {
    const h = createHarness();

    await h.ok(addNightly);
    await h.ok({ action: 'update_schedule', id: 'nightly', max_runs: 10 });
    await h.ok({ action: 'pause_schedule', id: 'nightly' });
    await h.ok({ action: 'pause_schedule', id: 'nightly' });
    await h.ok({ action: 'resume_schedule', id: 'nightly' });
    await h.ok({ action: 'resume_schedule', id: 'nightly' });
    await h.ok({ action: 'remove_schedule', id: 'nightly' });

    expect(types(h)).toEqual([
      'schedule.added',
      'schedule.updated',
      'schedule.paused',
      'schedule.resumed',
      'schedule.removed',
    ]);
    expect(h.events.events[1]).toEqual({
      type: 'schedule.updated',
      scheduleId: 'nightly',
      task: 'send-report',
      version: 2,
      at: T0,
      paused: false,
      runs: 0,
      maxRuns: 10,
      lastFireAt: null,
      nextFireAt: Date.parse('2026-03-03T02:00:00Z'),
    });
    expect(h.events.events.at(-1)).toMatchObject({ type: 'schedule.removed', reason: 'removed', version: 4 });
  });

  it('publishes nothing for a change that was not made', async () => {
    const h = createHarness();
    await h.ok(addNightly);

    await h.call(addNightly);
    await h.call({ action: 'update_schedule', id: 'nightly', max_runs: 0 });
    await h.call({ action: 'remove_schedule', id: 'missing' });
    await h.ok({ ...addNightly, conflict_policy: 'do_nothing' });

    expect(types(h)).toEqual(['schedule.added']);
  });

  it('answers the call although the event bus fails, and logs it', async () => {
    const h = createHarness();
    h.events.failing = true;

    const added = await h.call({
      action: 'add_schedule',
      id: 'every-minute',
      task: 'cleanup',
      trigger: everyMinute,
    });

    expect(added.ok).toBe(true);
    expect(await h.store.getSchedule('every-minute')).toBeDefined();
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'publishing events failed; the changes they tell of stand',
      }),
    );
  });

  it('publishes job.cancelled for cancel_job when the task publishes all its events', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'later',
      run_at: new Date(T0 + 60 * MINUTE).toISOString(),
    });
    await h.ok({
      action: 'add_job',
      task: 'send-report',
      job_id: 'quiet',
      payload: { team: 'ops' },
      run_at: new Date(T0 + 60 * MINUTE).toISOString(),
    });

    await h.ok({ action: 'cancel_job', job_id: 'later' });
    await h.ok({ action: 'cancel_job', job_id: 'later' });
    await h.ok({ action: 'cancel_job', job_id: 'quiet' });

    expect(h.events.events).toEqual([
      expect.objectContaining({
        type: 'job.cancelled',
        jobId: 'later',
        task: 'cleanup',
        scheduleId: null,
        at: T0,
        result: expect.objectContaining({ outcome: 'cancelled' }),
      }),
    ]);
  });

  it('finishes a schedule whose max_runs is lowered to its runs, and refuses a max_runs out of range', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'every-minute',
      task: 'cleanup',
      trigger: everyMinute,
      max_runs: 5,
    });

    const tooMany = errorOf(
      await h.call({ action: 'update_schedule', id: 'every-minute', max_runs: 1_000_000_001 }),
    );
    const updated = await h.ok<{ schedule: Record<string, unknown> }>({
      action: 'update_schedule',
      id: 'every-minute',
      max_runs: 4,
    });
    const raised = await h.ok<{ schedule: Record<string, unknown> }>({
      action: 'update_schedule',
      id: 'every-minute',
      max_runs: null,
    });

    expect(tooMany).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('max_runs') });
    // The add sent the fires at 09:00 … 09:03 itself (its first two chunks): a limit of 4 finishes it.
    expect(updated.schedule).toMatchObject({ runs: 4, max_runs: 4, finished: true, next_fire_time: null });
    expect(raised.schedule).toMatchObject({ runs: 4, max_runs: null, finished: false });
    expect(types(h)).toEqual(['schedule.added', 'schedule.updated', 'schedule.finished', 'schedule.updated']);
  });
});
