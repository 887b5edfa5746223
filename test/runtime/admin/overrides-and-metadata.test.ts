import { describe, expect, it } from 'vitest';
import { createHarness, errorOf, everyMinute, nightlyBerlin, SECOND, T0, testTasks } from './support/harness';

type Wire = Record<string, unknown>;
interface ScheduleAnswer {
  schedule: Wire & { id: string };
}
interface JobAnswer {
  job: Wire & { id: string };
}
interface Listing {
  schedules?: Array<{ id: string }>;
  jobs?: Array<{ id: string }>;
  cursor: string | null;
}

const overridden = { max_attempts: 1, backoff_seconds: 30, timeout_seconds: 20, result_ttl_seconds: 600 };

describe('overrides of the task’s run settings', () => {
  it('stores a schedule’s overrides, answers them, and sends them with each fire', async () => {
    const h = createHarness();

    const { schedule } = await h.ok<ScheduleAnswer>({
      action: 'add_schedule',
      id: 'every-minute',
      task: 'send-report',
      trigger: everyMinute,
      payload: { team: 'ops' },
      ...overridden,
    });

    expect(schedule).toMatchObject(overridden);
    expect((await h.store.getSchedule('every-minute'))?.overrides).toEqual({
      maxAttempts: 1,
      backoffSeconds: 30,
      timeoutSeconds: 20,
      resultTtlSeconds: 600,
    });
    expect(h.queue.messages.length).toBeGreaterThan(0);
    for (const message of h.queue.messages) {
      expect(message.job.overrides).toEqual({
        maxAttempts: 1,
        backoffSeconds: 30,
        timeoutSeconds: 20,
        resultTtlSeconds: 600,
      });
    }
  });

  it('answers null for each setting a schedule or job leaves to its task', async () => {
    const h = createHarness();
    const { schedule } = await h.ok<ScheduleAnswer>({
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
    });
    const { job } = await h.ok<JobAnswer>({ action: 'add_job', task: 'cleanup' });

    const unset = {
      max_attempts: null,
      backoff_seconds: null,
      timeout_seconds: null,
      result_ttl_seconds: null,
    };
    expect(schedule).toMatchObject({ ...unset, metadata: {}, description: null });
    expect(job).toMatchObject({ ...unset, metadata: {} });
    expect(h.queue.messages[0]?.job).not.toHaveProperty('overrides');
  });

  it('puts a job’s overrides and misfire grace on the job and its message', async () => {
    const h = createHarness();

    const { job } = await h.ok<JobAnswer>({
      action: 'add_job',
      task: 'cleanup',
      max_attempts: 2,
      timeout_seconds: 10,
      misfire_grace_seconds: 30,
    });

    expect(job).toMatchObject({
      max_attempts: 2,
      backoff_seconds: null,
      timeout_seconds: 10,
      start_deadline: new Date(T0 + 30 * SECOND).toISOString().replace('.000Z', 'Z'),
    });
    expect(h.queue.messages[0]?.job).toMatchObject({
      overrides: { maxAttempts: 2, timeoutSeconds: 10 },
      startDeadline: T0 + 30 * SECOND,
    });
  });

  it('keeps a cancelled job for its own result TTL', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'later',
      run_at: '2026-03-03T00:00:00Z',
      result_ttl_seconds: 60,
    });

    const { job } = await h.ok<JobAnswer>({ action: 'cancel_job', job_id: 'later' });

    expect(job.expires_at).toBe(new Date(T0 + 60 * SECOND).toISOString().replace('.000Z', 'Z'));
  });

  it('lets a job drop its task’s start deadline with misfire_grace_seconds null', async () => {
    const h = createHarness();
    const { job } = await h.ok<JobAnswer>({
      action: 'add_job',
      task: 'cleanup',
      misfire_grace_seconds: null,
    });
    expect(job.start_deadline).toBeNull();
  });

  it('rejects a timeout above the task’s own, naming the task’s value, and writes nothing', async () => {
    const h = createHarness();

    const onSchedule = errorOf(
      await h.call({ action: 'add_schedule', task: 'cleanup', trigger: nightlyBerlin, timeout_seconds: 61 }),
    );
    const onJob = errorOf(await h.call({ action: 'add_job', task: 'cleanup', timeout_seconds: 120 }));

    for (const error of [onSchedule, onJob]) {
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(
        "timeout_seconds: must be at most the timeoutSeconds of task 'cleanup' (60)",
      );
    }
    expect(h.writes).toEqual([]);
    expect(h.queue.messages).toEqual([]);
  });

  it('rejects overrides out of bounds, each naming its field and what is allowed', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({
        action: 'add_job',
        task: 'cleanup',
        max_attempts: 0,
        backoff_seconds: -1,
        timeout_seconds: 1.5,
        result_ttl_seconds: 400_000_000,
      }),
    );

    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('max_attempts: must be a whole number from 1 to 100');
    expect(error.message).toContain('backoff_seconds: must be a whole number from 0 to 86400');
    expect(error.message).toContain('timeout_seconds: must be a whole number from 1 to 900');
    expect(error.message).toContain('result_ttl_seconds: must be a whole number from 1 to 315360000');
    expect(h.writes).toEqual([]);
  });

  it('changes and clears a schedule’s overrides with update_schedule (null clears one)', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 's', task: 'cleanup', trigger: nightlyBerlin, max_attempts: 2 });

    const changed = await h.ok<ScheduleAnswer>({ action: 'update_schedule', id: 's', timeout_seconds: 30 });
    const cleared = await h.ok<ScheduleAnswer>({ action: 'update_schedule', id: 's', max_attempts: null });

    expect(changed.schedule).toMatchObject({ max_attempts: 2, timeout_seconds: 30 });
    expect(cleared.schedule).toMatchObject({ max_attempts: null, timeout_seconds: 30 });
    expect((await h.store.getSchedule('s'))?.overrides).toEqual({ timeoutSeconds: 30 });
  });

  it('checks a kept timeout override against the task a schedule moves to', async () => {
    const h = createHarness({
      tasks: testTasks({ quick: { handler: () => undefined, timeoutSeconds: 10 } }),
    });
    await h.ok({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: nightlyBerlin,
      timeout_seconds: 50,
    });

    const error = errorOf(await h.call({ action: 'update_schedule', id: 's', task: 'quick' }));
    const moved = await h.ok<ScheduleAnswer>({
      action: 'update_schedule',
      id: 's',
      task: 'quick',
      timeout_seconds: 5,
    });

    expect(error.message).toBe(
      "timeout_seconds: must be at most the timeoutSeconds of task 'quick' (10); an override may shorten the task's timeout, not lengthen it",
    );
    await h.ok({ action: 'update_schedule', id: 's', task: 'cleanup', timeout_seconds: 50 });
    const cleared = await h.ok<ScheduleAnswer>({
      action: 'update_schedule',
      id: 's',
      task: 'quick',
      timeout_seconds: null,
    });

    expect(moved.schedule).toMatchObject({ task: 'quick', timeout_seconds: 5 });
    expect(cleared.schedule).toMatchObject({ task: 'quick', timeout_seconds: null });
  });
});

describe('metadata and description', () => {
  it('stores a schedule’s metadata and description, answers them and copies the metadata to its jobs', async () => {
    const h = createHarness();

    const { schedule } = await h.ok<ScheduleAnswer>({
      action: 'add_schedule',
      id: 'tenant-sync',
      task: 'cleanup',
      trigger: everyMinute,
      metadata: { tenant: 'acme', tier: 'gold' },
      description: 'Nightly sync of the acme tenant',
    });
    const runNow = await h.ok<JobAnswer>({ action: 'run_schedule_now', id: 'tenant-sync' });
    const fetched = await h.ok<ScheduleAnswer>({ action: 'get_schedule', id: 'tenant-sync' });

    expect(schedule).toMatchObject({
      metadata: { tenant: 'acme', tier: 'gold' },
      description: 'Nightly sync of the acme tenant',
    });
    expect(fetched.schedule).toEqual(schedule);
    expect(runNow.job.metadata).toEqual({ tenant: 'acme', tier: 'gold' });
    expect(h.queue.messages.length).toBeGreaterThan(1);
    for (const message of h.queue.messages) {
      expect(message.job.metadata).toEqual({ tenant: 'acme', tier: 'gold' });
    }
  });

  it('shows a dispatched fire’s job with its schedule’s metadata', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'm',
      task: 'cleanup',
      trigger: everyMinute,
      metadata: { a: '1' },
    });

    const { job } = await h.ok<JobAnswer>({ action: 'get_job', job_id: `m@${T0}` });

    expect(job.metadata).toEqual({ a: '1' });
  });

  it('replaces and clears metadata and description with update_schedule', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: nightlyBerlin,
      metadata: { a: '1' },
      description: 'first',
    });

    const replaced = await h.ok<ScheduleAnswer>({
      action: 'update_schedule',
      id: 's',
      metadata: { b: '2' },
      description: 'second',
    });
    const cleared = await h.ok<ScheduleAnswer>({
      action: 'update_schedule',
      id: 's',
      metadata: null,
      description: null,
    });

    expect(replaced.schedule).toMatchObject({ metadata: { b: '2' }, description: 'second' });
    expect(cleared.schedule).toMatchObject({ metadata: {}, description: null });
    const stored = await h.store.getSchedule('s');
    expect(stored).not.toHaveProperty('metadata');
    expect(stored).not.toHaveProperty('description');
  });

  it('puts a job’s metadata on the job and its message', async () => {
    const h = createHarness();

    const { job } = await h.ok<JobAnswer>({ action: 'add_job', task: 'cleanup', metadata: { order: '42' } });

    expect(job.metadata).toEqual({ order: '42' });
    expect(h.queue.messages[0]?.job.metadata).toEqual({ order: '42' });
    expect((await h.ok<JobAnswer>({ action: 'get_job', job_id: job.id })).job.metadata).toEqual({
      order: '42',
    });
  });

  it('rejects metadata and descriptions out of bounds, naming the field, and writes nothing', async () => {
    const h = createHarness();
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v']));

    const keys = errorOf(
      await h.call({ action: 'add_schedule', task: 'cleanup', trigger: nightlyBerlin, metadata: tooMany }),
    );
    const shapes = errorOf(
      await h.call({
        action: 'add_schedule',
        task: 'cleanup',
        trigger: nightlyBerlin,
        metadata: { 'bad key': 'v', long: 'x'.repeat(257), number: 7 },
        description: 'd'.repeat(513),
      }),
    );
    const notAnObject = errorOf(await h.call({ action: 'add_job', task: 'cleanup', metadata: ['a'] }));
    const proto = errorOf(
      await h.call({ action: 'add_job', task: 'cleanup', metadata: JSON.parse('{"__proto__": "x"}') }),
    );

    expect(keys.message).toBe('metadata: must hold at most 20 keys');
    expect(shapes.message).toContain(
      'metadata.bad key: metadata keys may contain only letters, digits and . _ : -',
    );
    expect(shapes.message).toContain('metadata.long: must be at most 256 characters');
    expect(shapes.message).toContain('metadata.number: must be a string');
    expect(shapes.message).toContain('description: must be at most 512 characters');
    expect(notAnObject.message).toContain('metadata: must be an object of string values');
    expect(proto.message).toBe('metadata.__proto__: metadata keys must not be __proto__');
    expect(h.writes).toEqual([]);
  });

  it('filters list_schedules by metadata (all entries must match), paging with a cursor bound to the filter', async () => {
    const h = createHarness();
    for (const [id, team] of [
      ['a', 'ops'],
      ['b', 'billing'],
      ['c', 'ops'],
      ['d', 'ops'],
      ['e', 'ops'],
    ]) {
      await h.ok({
        action: 'add_schedule',
        id,
        task: 'cleanup',
        trigger: nightlyBerlin,
        metadata: { team, region: id === 'e' ? 'us' : 'eu' },
      });
    }
    const filter = { metadata: { team: 'ops', region: 'eu' } };

    const first = await h.ok<Listing>({ action: 'list_schedules', ...filter, limit: 2 });
    const second = await h.ok<Listing>({
      action: 'list_schedules',
      ...filter,
      limit: 2,
      cursor: first.cursor,
    });
    const otherFilter = errorOf(
      await h.call({ action: 'list_schedules', metadata: { team: 'billing' }, cursor: first.cursor }),
    );

    const ids = [...(first.schedules ?? []), ...(second.schedules ?? [])].map((schedule) => schedule.id);
    expect(ids).toEqual(['a', 'c', 'd']);
    expect(second.cursor).toBeNull();
    expect(otherFilter.code).toBe('invalid_input');
    expect(otherFilter.message).toMatch(/^cursor: /);
  });

  it('filters list_jobs by metadata, for a task and for a schedule’s dispatched fires', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1', metadata: { order: '1' } });
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j2', metadata: { order: '2' } });
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j3' });
    await h.ok({
      action: 'add_schedule',
      id: 'm',
      task: 'cleanup',
      trigger: everyMinute,
      metadata: { a: '1' },
    });

    const byTask = await h.ok<Listing>({ action: 'list_jobs', task: 'cleanup', metadata: { order: '2' } });
    const fires = await h.ok<Listing>({ action: 'list_jobs', schedule_id: 'm', metadata: { a: '1' } });
    const noFires = await h.ok<Listing>({ action: 'list_jobs', schedule_id: 'm', metadata: { a: '2' } });

    expect(byTask.jobs?.map((job) => job.id)).toEqual(['j2']);
    expect(fires.jobs?.map((job) => job.id)).toContain(`m@${T0}`);
    expect(noFires.jobs).toEqual([]);
  });
});
