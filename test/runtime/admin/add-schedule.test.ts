import { describe, expect, it } from 'vitest';
import { idAtPhase } from '../support';
import { createHarness, errorOf, everyMinute, MINUTE, nightlyBerlin, SECOND, T0 } from './support/harness';
import { tickOf } from './support/tick';

/** Schedules whose chunks start at the grid's own boundaries (T0 is one): the fires an add sends are counted by chunk. */
const PULSE = idAtPhase('pulse');
const SECOND_ID = idAtPhase('second');
const SOON = idAtPhase('soon');

interface ScheduleResult {
  status?: string;
  dispatched_jobs: number;
  schedule: Record<string, unknown> & { id: string; version: number; next_fire_time: string | null };
}

const iso = (instant: number) => new Date(instant).toISOString().replace('.000Z', 'Z');

describe('add_schedule', () => {
  it('stores a schedule with defaults filled in and answers it in wire format', async () => {
    const h = createHarness();

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: 'nightly-report',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'ops' },
      tags: ['reports', 'ops', 'reports'],
    });

    expect(result).toEqual({
      status: 'added',
      dispatched_jobs: 0,
      schedule: {
        id: 'nightly-report',
        task: 'send-report',
        trigger: nightlyBerlin,
        payload: { team: 'ops' },
        coalesce: 'latest',
        misfire_grace_seconds: null,
        max_jitter_seconds: 0,
        tags: ['reports', 'ops'],
        paused: false,
        max_attempts: null,
        backoff_seconds: null,
        timeout_seconds: null,
        result_ttl_seconds: null,
        metadata: {},
        description: null,
        timezone: 'Europe/Berlin',
        next_fire_time: '2026-03-03T02:00:00Z',
        next_fire_time_local: '2026-03-03T03:00:00+01:00',
        last_fire_time: null,
        finished: false,
        keep_finished: false,
        runs: 0,
        max_runs: null,
        version: 1,
        created_at: '2026-03-02T09:00:00Z',
        updated_at: '2026-03-02T09:00:00Z',
      },
    });
    expect(await h.store.getSchedule('nightly-report')).toMatchObject({
      nextFireAt: Date.parse('2026-03-03T02:00:00Z'),
    });
    expect(h.queue.messages).toEqual([]);
  });

  it('generates an id and stores the task’s misfire grace on the schedule', async () => {
    const h = createHarness();

    const { schedule } = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
    });

    expect(schedule.id).toBe('id-2');
    expect(schedule.misfire_grace_seconds).toBe(120);
    expect((await h.store.getSchedule('id-2'))?.misfireGraceSeconds).toBe(120);
  });

  it('keeps an explicit misfire grace of null (no deadline) over the task’s default', async () => {
    const h = createHarness();

    const { schedule } = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
      misfire_grace_seconds: null,
    });

    expect(schedule.misfire_grace_seconds).toBeNull();
  });

  it('sends the first fires of a schedule due too soon for the tick itself: its first chunks, at once', async () => {
    const h = createHarness();

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: PULSE,
      task: 'cleanup',
      trigger: { type: 'cron', expression: '*/30 * * * * *' },
    });

    // Two chunks of 120 s: the note after the first could not be read in time either
    const fires = [0, 30, 60, 90, 120, 150, 180, 210].map((seconds) => T0 + seconds * SECOND);
    expect(h.queue.messages.map((message) => message.job.id)).toEqual(
      fires.map((fire) => `${PULSE}@${fire}`),
    );
    expect(h.queue.messages.map((message) => message.delaySeconds)).toEqual([
      0, 30, 60, 90, 120, 150, 180, 210,
    ]);
    expect(result.dispatched_jobs).toBe(8);
    expect(result.schedule).toMatchObject({
      next_fire_time: iso(T0 + 240 * SECOND),
      last_fire_time: iso(T0 + 210 * SECOND),
      runs: 8,
    });
    // The item says where its chain started; its live note, where the chain stands
    expect(await h.store.getSchedule(PULSE)).toMatchObject({ nextFireAt: T0, lastFireAt: null, runs: 0 });
  });

  it('sends the first fires of a schedule firing every second itself, and the tick sends none of them again', async () => {
    const h = createHarness();
    const tick = tickOf(h);

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: SECOND_ID,
      task: 'cleanup',
      trigger: { type: 'interval', seconds: 1 },
    });
    const sentByAdd = h.queue.messages.length;
    await tick();
    h.clock.set(T0 + 90 * SECOND);
    await tick();

    // The add sent 0..239 s; the tick, from the note the add left, 240..359 s
    const seconds = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => from + n);
    const sent = h.queue.messages.map((message) => ((message.job.fireTime ?? 0) - T0) / SECOND);
    expect(result.dispatched_jobs).toBe(240);
    expect(sent.slice(0, sentByAdd)).toEqual(seconds(0, 239));
    expect(sent.slice(sentByAdd)).toEqual(seconds(240, 359));
  });

  it('writes the schedule with its chain’s first note, then the note after the fires it sends, and removes the first', async () => {
    const h = createHarness();

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: SOON,
      task: 'cleanup',
      trigger: { type: 'interval', seconds: 40, start_at: iso(T0 + 10 * SECOND) },
    });

    expect(h.queue.messages.map((message) => message.job.id)).toEqual(
      [10, 50, 90, 130, 170, 210].map((seconds) => `${SOON}@${T0 + seconds * SECOND}`),
    );
    expect(result.dispatched_jobs).toBe(6);
    expect(h.writes).toEqual(['createNoteCursor', 'addSchedule', 'writeDueNotes', 'removeDueNote']);
    expect(result.schedule).toMatchObject({ next_fire_time: iso(T0 + 250 * SECOND), runs: 6, version: 1 });
  });

  it('leaves to the tick a schedule whose first note can be read in time: one write, nothing sent', async () => {
    const h = createHarness();
    const tick = tickOf(h);

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: 'later',
      task: 'cleanup',
      trigger: { type: 'date', run_at: iso(T0 + 20 * MINUTE) },
    });
    const writes = [...h.writes];
    await tick();
    const beforeItsNote = h.queue.messages.length;
    // An isolated fire's note is read 14 minutes before it
    h.clock.set(T0 + 6 * MINUTE);
    await tick();

    expect(result.dispatched_jobs).toBe(0);
    expect(writes).toEqual(['createNoteCursor', 'addSchedule']);
    expect(beforeItsNote).toBe(0);
    expect(h.queue.messages.map((message) => message.job.fireTime)).toEqual([T0 + 20 * MINUTE]);
  });

  it.each([
    [859, 1],
    [860, 0],
  ])(
    'sends a first fire %i s ahead itself only when its note’s bucket is before the first open one (%i sent)',
    async (seconds, sent) => {
      // An isolated fire's note is read 840 s ahead; a note written now goes two buckets (20 s) on at the
      // earliest: 860 s ahead is the first fire the tick can still read in time
      const h = createHarness();

      const result = await h.ok<ScheduleResult>({
        action: 'add_schedule',
        id: 'edge',
        task: 'cleanup',
        trigger: { type: 'date', run_at: iso(T0 + seconds * SECOND) },
      });

      expect(result.dispatched_jobs).toBe(sent);
      expect(h.queue.messages.map((message) => message.delaySeconds)).toEqual(sent ? [seconds] : []);
      expect(result.schedule).toMatchObject({ finished: sent === 1 });
    },
  );

  it('does not dispatch a paused schedule even when it is due', async () => {
    const h = createHarness();

    await h.ok({ action: 'add_schedule', id: 'held', task: 'cleanup', trigger: everyMinute, paused: true });

    expect(h.queue.messages).toEqual([]);
    expect((await h.store.getSchedule('held'))?.paused).toBe(true);
  });

  it('anchors an interval without start_at at now: the first fire is now, and the stored trigger says so', async () => {
    const h = createHarness();

    const { schedule } = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: 'every-ten-minutes',
      task: 'cleanup',
      trigger: { type: 'interval', minutes: 10 },
    });

    expect(schedule.trigger).toEqual({ type: 'interval', minutes: 10, start_at: '2026-03-02T09:00:00Z' });
    expect(h.queue.messages.map((message) => message.job.fireTime)).toEqual([T0]);
    expect(schedule.next_fire_time).toBe(iso(T0 + 10 * MINUTE));
  });

  it('still succeeds when sending its first fires fails: the schedule is stored, and the tick sends them', async () => {
    const h = createHarness();
    const tick = tickOf(h);
    h.queue.refuse = 'throw';

    const result = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: 'due',
      task: 'cleanup',
      trigger: everyMinute,
    });
    h.queue.refuse = new Set();
    // Its note is written again two buckets on, to be retried alone
    h.clock.set(T0 + 20 * SECOND);
    await tick();

    expect(result.dispatched_jobs).toBe(0);
    expect(await h.store.getSchedule('due')).toMatchObject({ nextFireAt: T0 });
    expect(h.queue.messages.map((message) => message.job.fireTime)).toEqual(
      [0, 1, 2, 3].map((minutes) => T0 + minutes * MINUTE),
    );
  });

  describe('conflict policies', () => {
    const original = {
      action: 'add_schedule',
      id: 'report',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'a' },
    };

    it('rejects an existing id by default and leaves the stored schedule alone', async () => {
      const h = createHarness();
      await h.ok(original);

      const error = errorOf(await h.call({ ...original, payload: { team: 'b' } }));

      expect(error).toEqual({
        code: 'conflicting_id',
        message:
          "schedule 'report' already exists; use conflict_policy 'replace' or 'do_nothing' to change how conflicts are handled",
      });
      expect((await h.store.getSchedule('report'))?.payload).toEqual({ team: 'a' });
    });

    it('replaces the definition with replace (version bumped)', async () => {
      const h = createHarness();
      await h.ok(original);

      const result = await h.ok<ScheduleResult>({
        ...original,
        payload: { team: 'b' },
        conflict_policy: 'replace',
      });

      expect(result.status).toBe('replaced');
      expect(result.schedule).toMatchObject({ payload: { team: 'b' }, version: 2 });
    });

    it('keeps the stored schedule with do_nothing', async () => {
      const h = createHarness();
      await h.ok(original);

      const result = await h.ok<ScheduleResult>({
        ...original,
        payload: { team: 'b' },
        conflict_policy: 'do_nothing',
      });

      expect(result.status).toBe('kept');
      expect(result.schedule).toMatchObject({ payload: { team: 'a' }, version: 1 });
    });
  });
});

describe('payload: null', () => {
  it('is stored as sent, not replaced by the default {} (add_job, add_schedule, update_schedule)', async () => {
    const h = createHarness();
    const job = await h.ok<{ job: { payload: unknown } }>({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'n',
      payload: null,
    });
    const added = await h.ok<ScheduleResult>({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: nightlyBerlin,
      payload: null,
    });
    expect(job.job.payload).toBeNull();
    expect(added.schedule.payload).toBeNull();
    expect(h.queue.messages.at(-1)?.job.payload).toBeNull();

    await h.ok({
      action: 'add_schedule',
      id: 't',
      task: 'cleanup',
      trigger: nightlyBerlin,
      payload: { a: 1 },
    });
    await h.ok({ action: 'update_schedule', id: 't', payload: null });
    const updated = await h.ok<ScheduleResult>({ action: 'get_schedule', id: 't' });
    expect(updated.schedule).toHaveProperty('payload', null);
  });
});

describe('add_schedule with dry_run', () => {
  const request = {
    action: 'add_schedule',
    id: 'every-30s',
    task: 'cleanup',
    trigger: { type: 'interval', seconds: 30 },
    dry_run: true,
  };

  it('answers what it would add, and writes, sends and publishes nothing', async () => {
    const h = createHarness();

    const result = await h.ok<ScheduleResult>(request);

    expect(result).toMatchObject({
      status: 'added',
      dispatched_jobs: 0,
      schedule: { id: 'every-30s', next_fire_time: iso(T0), runs: 0, version: 1 },
    });
    expect([h.writes, h.queue.messages, h.events.events]).toEqual([[], [], []]);
    expect(errorOf(await h.call({ action: 'get_schedule', id: 'every-30s' })).code).toBe(
      'schedule_not_found',
    );
  });

  it('refuses what the call would refuse: an id in use, a payload the task refuses, an unknown task', async () => {
    const h = createHarness();
    await h.ok({ ...request, dry_run: false });
    const written = h.writes.length;

    const taken = errorOf(await h.call(request));
    const kept = await h.ok<ScheduleResult>({ ...request, conflict_policy: 'do_nothing' });
    const replaced = await h.ok<ScheduleResult>({ ...request, conflict_policy: 'replace' });
    const payload = errorOf(
      await h.call({ ...request, id: 'r', task: 'send-report', payload: { team: '' } }),
    );
    const task = errorOf(await h.call({ ...request, id: 'u', task: 'send-reprot' }));

    expect(taken.code).toBe('conflicting_id');
    expect([kept.status, replaced.status]).toEqual(['kept', 'replaced']);
    expect(payload).toMatchObject({ code: 'invalid_input', details: [{ path: 'payload.team' }] });
    expect(task.code).toBe('unknown_task');
    expect(h.writes.length).toBe(written);
  });
});
