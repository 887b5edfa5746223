import { describe, expect, it } from 'vitest';
import { createHarness, errorOf, type Harness, MINUTE, SECOND, T0 } from './support/harness';

/** Claims and finishes a stored job as a worker would. */
async function runToSuccess(h: Harness, jobId: string, returnValue: unknown) {
  const job = await h.store.getJob(jobId, h.clock.now());
  if (!job) throw new Error(`no job ${jobId}`);
  const startedAt = h.clock.now();
  await h.store.claimJob({
    job,
    attempt: 1,
    owner: 'worker-1',
    now: startedAt,
    leaseUntil: startedAt + MINUTE,
  });
  h.clock.advance(1_500);
  await h.store.finishJob({
    jobId,
    owner: 'worker-1',
    result: {
      outcome: 'success',
      returnValue: returnValue as never,
      startedAt,
      finishedAt: h.clock.now(),
      attempt: 1,
    },
    expiresAt: h.clock.now() + 3600 * SECOND,
  });
}

describe('get_job, list_jobs and get_job_result', () => {
  it('gets a job, and says job_not_found for an unknown id', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });

    const found = await h.ok<{ job: { id: string; status: string } }>({ action: 'get_job', job_id: 'j1' });
    const missing = errorOf(await h.call({ action: 'get_job', job_id: 'nightly@1772442000000' }));

    expect(found.job).toMatchObject({ id: 'j1', status: 'queued' });
    expect(missing).toEqual({
      code: 'job_not_found',
      message: "job 'nightly@1772442000000' does not exist (or its result has expired)",
    });
  });

  it('pages through the jobs of a task', async () => {
    const h = createHarness();
    for (const id of ['j1', 'j2', 'j3']) {
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: id });
      h.clock.advance(SECOND);
    }
    await h.ok({ action: 'add_job', task: 'send-report', job_id: 'other', payload: { team: 'x' } });

    const first = await h.ok<{ jobs: { id: string }[]; cursor: string | null }>({
      action: 'list_jobs',
      task: 'cleanup',
      limit: 2,
    });
    const second = await h.ok<{ jobs: { id: string }[]; cursor: string | null }>({
      action: 'list_jobs',
      task: 'cleanup',
      limit: 2,
      cursor: first.cursor,
    });

    const ids = [...first.jobs, ...second.jobs].map((job) => job.id);
    expect(ids.sort()).toEqual(['j1', 'j2', 'j3']);
    expect(first.jobs).toHaveLength(2);
    expect(second.cursor).toBeNull();
  });

  it('answers no_result_yet while the job has not finished, then the result', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });

    const early = errorOf(await h.call({ action: 'get_job_result', job_id: 'j1' }));
    await runToSuccess(h, 'j1', { deleted: 12 });
    const result = await h.ok({ action: 'get_job_result', job_id: 'j1' });

    expect(early).toEqual({
      code: 'no_result_yet',
      message: "job 'j1' has no result yet (status queued); ask again once it has finished",
    });
    expect(result).toEqual({
      job_id: 'j1',
      status: 'success',
      result: {
        outcome: 'success',
        return_value: { deleted: 12 },
        started_at: '2026-03-02T09:00:00Z',
        finished_at: '2026-03-02T09:00:01.500Z',
        duration_seconds: 1.5,
        attempt: 1,
      },
    });
  });

  it('says job_not_found for the result of an unknown job', async () => {
    const h = createHarness();

    expect(errorOf(await h.call({ action: 'get_job_result', job_id: 'nope' })).code).toBe('job_not_found');
  });
});

describe('cancel_job', () => {
  it('cancels a queued job, keeping the record for the task’s result TTL; cancelling again is fine', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'send-report', job_id: 'j1', payload: { team: 'a' } });

    const cancelled = await h.ok<{ job: Record<string, unknown> }>({ action: 'cancel_job', job_id: 'j1' });
    const again = await h.ok<{ job: Record<string, unknown> }>({ action: 'cancel_job', job_id: 'j1' });

    expect(cancelled.job).toMatchObject({ status: 'cancelled', expires_at: '2026-03-02T10:00:00Z' });
    expect(again.job).toEqual(cancelled.job);
    const claim = await h.store.claimJob({
      job: {
        id: 'j1',
        task: 'send-report',
        payload: { team: 'a' },
        origin: 'direct',
        scheduleId: null,
        fireTime: null,
        runAt: T0,
        startDeadline: null,
      },
      attempt: 1,
      owner: 'worker',
      now: T0,
      leaseUntil: T0 + MINUTE,
    });
    expect(claim.status).toBe('cancelled');
  });

  it('refuses to cancel a job that has started', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });
    await runToSuccess(h, 'j1', null);

    const error = errorOf(await h.call({ action: 'cancel_job', job_id: 'j1' }));

    expect(error).toEqual({
      code: 'job_not_cancellable',
      message: "job 'j1' cannot be cancelled: it is success; a job that has ended cannot be cancelled",
    });
  });

  it('cancels a fire the tick already sent, which exists only as a queue message', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'pulse',
      task: 'cleanup',
      trigger: { type: 'cron', expression: '* * * * *' },
    });
    const fireJobId = `pulse@${T0 + MINUTE}`;

    const cancelled = await h.ok<{ job: Record<string, unknown> }>({
      action: 'cancel_job',
      job_id: fireJobId,
    });

    expect(cancelled.job).toMatchObject({
      id: fireJobId,
      task: 'cleanup',
      origin: 'schedule',
      schedule_id: 'pulse',
      fire_time: '2026-03-02T09:01:00Z',
      status: 'cancelled',
    });
  });

  it('says job_not_found for a fire not dispatched yet and for unknown jobs', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'pulse',
      task: 'cleanup',
      trigger: { type: 'cron', expression: '* * * * *' },
    });
    h.writes.length = 0;

    const future = errorOf(await h.call({ action: 'cancel_job', job_id: `pulse@${T0 + 10 * MINUTE}` }));
    const unknown = errorOf(await h.call({ action: 'cancel_job', job_id: 'nope' }));

    expect([future.code, unknown.code]).toEqual(['job_not_found', 'job_not_found']);
    expect(h.writes).toEqual([]);
  });
});

describe('list_jobs input that a store would refuse', () => {
  it.each([
    ['equal', '2026-03-02T09:00:00Z', '2026-03-02T09:00:00Z'],
    ['earlier', '2026-03-02T10:00:00Z', '2026-03-02T09:00:00Z'],
  ])('until %s to since is invalid input naming until', async (_, since, until) => {
    const h = createHarness();
    const error = errorOf(await h.call({ action: 'list_jobs', status: 'error', since, until }));
    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual([
      { path: 'until', message: `must be later than since (${since.replace('Z', '.000Z')})` },
    ]);
  });

  it('a cursor from the queued fires of one listing pages no other schedule or filter', async () => {
    const h = createHarness();
    const every30s = { type: 'interval', seconds: 30 };
    await h.ok({ action: 'add_schedule', id: 'a', task: 'cleanup', trigger: every30s });
    await h.ok({ action: 'add_schedule', id: 'b', task: 'cleanup', trigger: every30s });
    const queued = { schedule_id: 'a', status: 'queued' };
    const page = await h.ok<{ cursor: string | null }>({ action: 'list_jobs', ...queued, limit: 2 });
    expect(page.cursor).not.toBeNull();
    const next = await h.ok<{ jobs: unknown[] }>({
      action: 'list_jobs',
      ...queued,
      limit: 2,
      cursor: page.cursor,
    });
    expect(next.jobs.length).toBeGreaterThan(0);

    for (const other of [
      { schedule_id: 'b', status: 'queued' },
      { ...queued, metadata: { tenant: 'acme' } },
      { schedule_id: 'a' },
    ]) {
      const error = errorOf(await h.call({ action: 'list_jobs', ...other, limit: 2, cursor: page.cursor }));
      expect(error.code).toBe('invalid_input');
      expect(error.details).toEqual([
        { path: 'cursor', message: expect.stringContaining('is not a cursor of this listing') },
      ]);
    }
  });
});
