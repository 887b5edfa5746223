import { describe, expect, it, vi } from 'vitest';
import { SCHEDULE_CHANGE_FIELDS } from '../../../lib/core/admin-contract';
import { createHarness, errorOf, everyMinute, MINUTE, nightlyBerlin, SECOND, T0 } from './support/harness';

interface ScheduleResult {
  status?: string;
  dispatched_jobs: number;
  schedule: Record<string, unknown> & { id: string; version: number; next_fire_time: string | null };
}

const iso = (instant: number) => new Date(instant).toISOString().replace('.000Z', 'Z');

describe('get_schedule, list_schedules and remove_schedule', () => {
  it('gets a schedule, and says schedule_not_found for an unknown id', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });

    const found = await h.ok<ScheduleResult>({ action: 'get_schedule', id: 'report' });
    const missing = errorOf(await h.call({ action: 'get_schedule', id: 'nope' }));

    expect(found.schedule.id).toBe('report');
    expect(missing).toEqual({ code: 'schedule_not_found', message: "schedule 'nope' does not exist" });
  });

  it('pages through schedules by id with a cursor, filtered by task, tag and paused', async () => {
    const h = createHarness();
    for (const id of ['e', 'a', 'd', 'b', 'c']) {
      await h.ok({
        action: 'add_schedule',
        id,
        task: 'cleanup',
        trigger: nightlyBerlin,
        tags: id < 'c' ? ['early'] : [],
      });
    }
    await h.ok({
      action: 'add_schedule',
      id: 'f',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'x' },
      paused: true,
    });

    const first = await h.ok<{ schedules: { id: string }[]; cursor: string | null }>({
      action: 'list_schedules',
      task: 'cleanup',
      limit: 2,
    });
    const second = await h.ok<{ schedules: { id: string }[]; cursor: string | null }>({
      action: 'list_schedules',
      task: 'cleanup',
      limit: 2,
      cursor: first.cursor,
    });
    const third = await h.ok<{ schedules: { id: string }[]; cursor: string | null }>({
      action: 'list_schedules',
      task: 'cleanup',
      limit: 2,
      cursor: second.cursor,
    });
    const tagged = await h.ok<{ schedules: { id: string }[] }>({ action: 'list_schedules', tag: 'early' });
    const paused = await h.ok<{ schedules: { id: string }[] }>({ action: 'list_schedules', paused: true });

    expect([first, second, third].map((page) => page.schedules.map((schedule) => schedule.id))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e'],
    ]);
    expect(third.cursor).toBeNull();
    expect(tagged.schedules.map((schedule) => schedule.id)).toEqual(['a', 'b']);
    expect(paused.schedules.map((schedule) => schedule.id)).toEqual(['f']);
  });

  it('rejects a cursor it did not hand out', async () => {
    const h = createHarness();

    const error = errorOf(await h.call({ action: 'list_schedules', cursor: 'garbage' }));

    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe(
      "cursor: 'garbage' is not a cursor of this listing (a cursor pages only the action and filters that returned it); omit it to start over",
    );
  });

  it('removes a schedule, and says schedule_not_found the second time', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });

    const removed = await h.ok({ action: 'remove_schedule', id: 'report' });
    const again = errorOf(await h.call({ action: 'remove_schedule', id: 'report' }));

    expect(removed).toEqual({ id: 'report', removed: true });
    expect(again.code).toBe('schedule_not_found');
    expect(await h.store.getSchedule('report')).toBeUndefined();
  });
});

describe('update_schedule', () => {
  it('changes the given fields, bumps the version and keeps the rest', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'report',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'a' },
    });

    const result = await h.ok<ScheduleResult>({
      action: 'update_schedule',
      id: 'report',
      payload: { team: 'b', format: 'csv' },
      max_jitter_seconds: 30,
      coalesce: 'all',
    });

    expect(result.schedule).toMatchObject({
      payload: { team: 'b', format: 'csv' },
      max_jitter_seconds: 30,
      coalesce: 'all',
      trigger: nightlyBerlin,
      next_fire_time: '2026-03-03T02:00:00Z',
      version: 2,
    });
  });

  it('computes the next fire time of a new trigger and starts a new chain, sending its first fires when due too soon', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    const before = await h.store.getSchedule('report');
    h.clock.advance(SECOND);

    const result = await h.ok<ScheduleResult>({
      action: 'update_schedule',
      id: 'report',
      trigger: everyMinute,
    });

    // Its first two chunks (09:01, then 09:02 and 09:03) were due too soon for the tick
    const after = await h.store.getSchedule('report');
    expect(h.queue.messages.map((message) => message.job.fireTime)).toEqual(
      [1, 2, 3].map((minutes) => T0 + minutes * MINUTE),
    );
    expect(result.dispatched_jobs).toBe(3);
    expect(result.schedule).toMatchObject({ next_fire_time: iso(T0 + 4 * MINUTE), runs: 3, version: 2 });
    expect(after?.chain).not.toBe(before?.chain);
    expect(after).toMatchObject({ firesFrom: T0 + SECOND, nextFireAt: T0 + MINUTE });
  });

  it('checks the payload against the new task when the task changes', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'report',
      task: 'cleanup',
      trigger: nightlyBerlin,
      payload: { anything: 1 },
    });

    const error = errorOf(await h.call({ action: 'update_schedule', id: 'report', task: 'send-report' }));

    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^payload\.team: /);
    expect(error.message).toContain('payload: Unrecognized key: "anything"');
    expect((await h.store.getSchedule('report'))?.task).toBe('cleanup');
  });

  it('fails with version_conflict when expected_version is stale', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    await h.ok({ action: 'update_schedule', id: 'report', tags: ['x'] });

    const error = errorOf(
      await h.call({ action: 'update_schedule', id: 'report', tags: ['y'], expected_version: 1 }),
    );

    expect(error).toEqual({
      code: 'version_conflict',
      message: "schedule 'report' was changed concurrently (expected version 1)",
    });
    expect((await h.store.getSchedule('report'))?.tags).toEqual(['x']);
  });

  it('re-reads and applies the change when someone else changed the schedule meanwhile', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    const update = h.store.updateSchedule.bind(h.store);
    vi.spyOn(h.store, 'updateSchedule').mockImplementationOnce(async (input) => {
      await update({ ...input, changes: { tags: ['changed-meanwhile'] } });
      return update(input);
    });

    const result = await h.ok<ScheduleResult>({
      action: 'update_schedule',
      id: 'report',
      max_jitter_seconds: 5,
    });

    expect(result.schedule).toMatchObject({ version: 3, tags: ['changed-meanwhile'], max_jitter_seconds: 5 });
  });

  it('says what can be changed when nothing is given', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });

    const error = errorOf(await h.call({ action: 'update_schedule', id: 'report' }));

    expect(error.message).toBe(
      `nothing to change: give at least one of ${SCHEDULE_CHANGE_FIELDS.join(', ')}`,
    );
    expect(SCHEDULE_CHANGE_FIELDS).toEqual(expect.arrayContaining(['task', 'trigger', 'payload', 'tags']));
    expect(SCHEDULE_CHANGE_FIELDS).not.toEqual(expect.arrayContaining(['id']));
    expect(SCHEDULE_CHANGE_FIELDS).not.toEqual(expect.arrayContaining(['expected_version']));
  });

  it('says schedule_not_found for an unknown id', async () => {
    const h = createHarness();

    expect(errorOf(await h.call({ action: 'update_schedule', id: 'nope', tags: [] })).code).toBe(
      'schedule_not_found',
    );
  });
});

describe('pause_schedule and resume_schedule', () => {
  it('pauses, and resumes from now without replaying missed fire times', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'hourly',
      task: 'cleanup',
      trigger: { type: 'cron', expression: '0 * * * *' },
    });
    const paused = await h.ok<ScheduleResult>({ action: 'pause_schedule', id: 'hourly' });
    h.queue.messages.length = 0; // the 09:00 fire, dispatched by add_schedule
    h.clock.advance(3 * 60 * MINUTE + 30 * SECOND);

    const resumed = await h.ok<ScheduleResult>({ action: 'resume_schedule', id: 'hourly' });

    expect(paused.schedule.paused).toBe(true);
    expect(resumed.schedule).toMatchObject({ paused: false, next_fire_time: '2026-03-02T13:00:00Z' });
    expect(h.queue.messages).toEqual([]);
  });

  it('replays missed fire times on request, as the coalesce policy decides (latest: one job)', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'hourly',
      task: 'cleanup',
      trigger: { type: 'cron', expression: '0 * * * *' },
    });
    await h.ok({ action: 'pause_schedule', id: 'hourly' });
    h.queue.messages.length = 0; // the 09:00 fire, dispatched by add_schedule
    h.clock.advance(3 * 60 * MINUTE + 30 * SECOND);

    const resumed = await h.ok<ScheduleResult>({
      action: 'resume_schedule',
      id: 'hourly',
      replay_missed: true,
    });

    expect(h.queue.messages.map((message) => message.job.fireTime)).toEqual([
      Date.parse('2026-03-02T12:00:00Z'),
    ]);
    expect(resumed.dispatched_jobs).toBe(1);
    expect(resumed.schedule.next_fire_time).toBe('2026-03-02T13:00:00Z');
  });

  it('replays every missed fire time with coalesce all', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'hourly',
      task: 'cleanup',
      coalesce: 'all',
      trigger: { type: 'cron', expression: '0 * * * *' },
    });
    await h.ok({ action: 'pause_schedule', id: 'hourly' });
    h.queue.messages.length = 0; // the 09:00 fire, dispatched by add_schedule
    h.clock.advance(3 * 60 * MINUTE + 30 * SECOND);

    await h.ok({ action: 'resume_schedule', id: 'hourly', replay_missed: true });

    expect(h.queue.messages.map((message) => new Date(message.job.fireTime ?? 0).toISOString())).toEqual([
      '2026-03-02T10:00:00.000Z',
      '2026-03-02T11:00:00.000Z',
      '2026-03-02T12:00:00.000Z',
    ]);
  });

  it('leaves an active schedule unchanged when resumed', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    h.writes.length = 0;

    const resumed = await h.ok<ScheduleResult>({ action: 'resume_schedule', id: 'report' });

    expect(resumed.schedule.version).toBe(1);
    expect(h.writes).toEqual([]);
  });

  it('says schedule_not_found for unknown ids', async () => {
    const h = createHarness();

    expect(errorOf(await h.call({ action: 'pause_schedule', id: 'nope' })).code).toBe('schedule_not_found');
    expect(errorOf(await h.call({ action: 'resume_schedule', id: 'nope' })).code).toBe('schedule_not_found');
  });
});

describe('run_schedule_now', () => {
  it('queues one job now with the schedule’s task and payload, under an id no fire can have', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'report',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'a' },
    });

    const { job } = await h.ok<{ job: Record<string, unknown> }>({
      action: 'run_schedule_now',
      id: 'report',
    });

    // Ids are id-1, id-2, …: the add's request, its chain's token, then this call's request and job.
    expect(job).toMatchObject({
      id: 'report@run-id-4',
      task: 'send-report',
      payload: { team: 'a' },
      origin: 'run_now',
      schedule_id: 'report',
      fire_time: null,
      run_at: '2026-03-02T09:00:00Z',
      status: 'queued',
    });
    expect(h.queue.messages).toEqual([
      {
        job: {
          id: 'report@run-id-4',
          task: 'send-report',
          payload: { team: 'a' },
          origin: 'run_now',
          scheduleId: 'report',
          fireTime: null,
          runAt: T0,
          startDeadline: null,
          createToken: (await h.store.getJob('report@run-id-4', T0))?.createToken,
        },
        attempt: 1,
        delaySeconds: 0,
      },
    ]);
    expect((await h.store.getSchedule('report'))?.version).toBe(1);
  });

  it('says schedule_not_found for an unknown id', async () => {
    const h = createHarness();

    expect(errorOf(await h.call({ action: 'run_schedule_now', id: 'nope' })).code).toBe('schedule_not_found');
    expect(h.queue.messages).toEqual([]);
  });
});
