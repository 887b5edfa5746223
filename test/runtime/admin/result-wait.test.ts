import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../../lib/core/model/job';
import { createHarness, errorOf, type Harness, MINUTE, SECOND } from './support/harness';

/** Claims and ends a stored job (or a fire that exists only as its queue message) as a worker would. */
async function runTo(
  h: Harness,
  jobId: string,
  result: Pick<JobResult, 'outcome' | 'returnValue' | 'error'>,
) {
  const job =
    (await h.store.getJob(jobId, h.clock.now())) ??
    h.queue.messages.find((message) => message.job.id === jobId)?.job;
  if (!job) throw new Error(`no job ${jobId}`);
  const startedAt = h.clock.now();
  await h.store.claimJob({ job, attempt: 1, owner: 'w', now: startedAt, leaseUntil: startedAt + MINUTE });
  await h.store.finishJob({
    jobId,
    owner: 'w',
    result: { ...result, startedAt, finishedAt: h.clock.now(), attempt: 1 },
    expiresAt: h.clock.now() + 3600 * SECOND,
  });
}

describe('get_job_result with wait_seconds', () => {
  it('answers as soon as the result exists', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });
    h.onPause = async (count) => {
      if (count === 3) await runTo(h, 'j1', { outcome: 'success', returnValue: { deleted: 3 } });
    };

    const answer = await h.ok<{ status: string; result: { return_value: unknown } }>({
      action: 'get_job_result',
      job_id: 'j1',
      wait_seconds: 20,
    });

    expect(answer).toMatchObject({ status: 'success', result: { return_value: { deleted: 3 } } });
    expect(h.pauses).toEqual([50, 100, 200]);
  });

  it('backs off to one read a second, and answers no_result_yet when the wait runs out', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });

    const error = errorOf(await h.call({ action: 'get_job_result', job_id: 'j1', wait_seconds: 20 }));

    expect(error.code).toBe('no_result_yet');
    expect(h.pauses.reduce((sum, pause) => sum + pause, 0)).toBe(20_000);
    expect(h.pauses.length).toBeLessThanOrEqual(26);
    expect(Math.max(...h.pauses)).toBe(1_000);
  });

  it('waits for a fire the tick sent that has no record yet', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: { type: 'interval', seconds: 30 },
    });
    const fire = h.queue.messages[0]?.job.id ?? '';
    h.onPause = async (count) => {
      if (count === 2) await runTo(h, fire, { outcome: 'success', returnValue: 'swept' });
    };

    const answer = await h.ok({ action: 'get_job_result', job_id: fire, wait_seconds: 10 });

    expect(fire).toMatch(/^s@\d+$/);
    expect(answer).toMatchObject({ job_id: fire, status: 'success', result: { return_value: 'swept' } });
  });

  it('does not wait without wait_seconds', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });

    expect(errorOf(await h.call({ action: 'get_job_result', job_id: 'j1' })).code).toBe('no_result_yet');
    expect(h.pauses).toEqual([]);
  });

  it('rejects a wait longer than the admin Lambda can wait', async () => {
    const h = createHarness();

    const error = errorOf(await h.call({ action: 'get_job_result', job_id: 'j1', wait_seconds: 31 }));

    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual([
      {
        path: 'wait_seconds',
        message:
          "must be at most 30 seconds (the admin Lambda's timeout bounds a wait); ask again to wait longer",
      },
    ]);
  });
});

describe('run_job', () => {
  it('adds the job, sends it, and answers its result once it ran', async () => {
    const h = createHarness();
    h.onPause = async (count) => {
      const message = h.queue.messages[0];
      if (count === 2 && message) {
        await runTo(h, message.job.id, { outcome: 'error', error: { type: 'Boom', message: 'disk full' } });
      }
    };

    const answer = await h.ok<{ job_id: string; status: string; result: unknown }>({
      action: 'run_job',
      task: 'cleanup',
      job_id: 'once',
      payload: { dir: '/tmp' },
    });

    expect(h.queue.messages.map((message) => message.job.id)).toEqual(['once']);
    expect(answer).toMatchObject({
      job_id: 'once',
      status: 'error',
      result: { outcome: 'error', error: { type: 'Boom', message: 'disk full' }, attempt: 1 },
    });
  });

  it('answers the current status without a result when the wait runs out', async () => {
    const h = createHarness();

    const answer = await h.ok({ action: 'run_job', task: 'cleanup', job_id: 'slow', wait_seconds: 2 });

    expect(answer).toEqual({ job_id: 'slow', status: 'queued', result: null });
    expect(h.pauses.reduce((sum, pause) => sum + pause, 0)).toBe(2_000);
  });

  it('validates as add_job does, plus wait_seconds, and writes nothing when rejected', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({ action: 'run_job', task: 'send-report', payload: { team: 7 }, wait_seconds: -1 }),
    );

    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual([
      { path: 'wait_seconds', message: 'must be a number of seconds from 0 to 30' },
      { path: 'payload.team', message: 'Invalid input: expected string, received number' },
    ]);
    expect(h.writes).toEqual([]);
    expect(h.queue.messages).toEqual([]);
  });
});
