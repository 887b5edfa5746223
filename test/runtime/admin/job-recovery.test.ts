import { describe, expect, it } from 'vitest';
import type { ResultOutcome } from '../../../lib/core/model/job';
import { decodeJobMessage, encodeJobMessage } from '../../../lib/core/model/job-message';
import { createHarness, errorOf, type Harness, MINUTE, SECOND, T0 } from './support/harness';

/** Adds job `id` of `task` and runs it once to `outcome`, as a worker would. */
async function endAs(h: Harness, id: string, task: string, outcome: ResultOutcome) {
  await h.ok({ action: 'add_job', task, job_id: id, payload: task === 'send-report' ? { team: 'a' } : {} });
  const job = await h.store.getJob(id, h.clock.now());
  if (!job) throw new Error(`no job ${id}`);
  const now = h.clock.now();
  await h.store.claimJob({ job, attempt: 1, owner: 'w', now, leaseUntil: now + MINUTE });
  await h.store.finishJob({
    jobId: id,
    owner: 'w',
    result: {
      outcome,
      ...(outcome === 'error' && { error: { type: 'Boom', message: `${id} broke`, stack: 'Boom\n at x' } }),
      startedAt: now,
      finishedAt: now + SECOND,
      attempt: 1,
    },
    expiresAt: now + 3600 * SECOND,
  });
  h.clock.advance(MINUTE);
}

describe('list_jobs by status across tasks', () => {
  it('lists the failed jobs of every task, latest finish first, narrowed by since and until', async () => {
    const h = createHarness();
    await endAs(h, 'c1', 'cleanup', 'error');
    await endAs(h, 'r1', 'send-report', 'error');
    await endAs(h, 'c2', 'cleanup', 'success');
    await endAs(h, 'c3', 'cleanup', 'error');

    const all = await h.ok<{ jobs: { id: string }[] }>({ action: 'list_jobs', status: 'error' });
    const ranged = await h.ok<{ jobs: { id: string }[] }>({
      action: 'list_jobs',
      status: 'error',
      since: new Date(T0 + MINUTE).toISOString(),
      until: new Date(T0 + 3 * MINUTE).toISOString(),
    });

    expect(all.jobs.map((job) => job.id)).toEqual(['c3', 'r1', 'c1']);
    expect(ranged.jobs.map((job) => job.id)).toEqual(['r1']);
  });
});

describe('count_jobs', () => {
  it('counts jobs by status per task, and says when it counted only the newest', async () => {
    const h = createHarness();
    await endAs(h, 'c1', 'cleanup', 'error');
    await endAs(h, 'c2', 'cleanup', 'success');
    await endAs(h, 'c3', 'cleanup', 'error');
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'c4' });

    const every = await h.ok({ action: 'count_jobs' });
    const newest = await h.ok({ action: 'count_jobs', task: 'cleanup', max_jobs: 2 });
    const unknown = errorOf(await h.call({ action: 'count_jobs', task: 'nope' }));

    expect(every).toEqual({
      tasks: [
        { task: 'cleanup', counts: { queued: 1, error: 2, success: 1 }, counted: 4, complete: true },
        { task: 'send-report', counts: {}, counted: 0, complete: true },
      ],
    });
    expect(newest).toEqual({
      tasks: [{ task: 'cleanup', counts: { queued: 1, error: 1 }, counted: 2, complete: false }],
    });
    expect(unknown.code).toBe('unknown_task');
  });
});

describe('retry_job', () => {
  it('sends a new attempt of a failed job that counts its retries from there, keeping its history', async () => {
    const h = createHarness();
    await endAs(h, 'c1', 'cleanup', 'error');

    const answer = await h.ok<{ job: Record<string, unknown> }>({ action: 'retry_job', job_id: 'c1' });

    const message = h.queue.messages.at(-1);
    expect(message).toMatchObject({ attempt: 2, job: { id: 'c1', attemptBase: 1, startDeadline: null } });
    expect(decodeJobMessage(encodeJobMessage(message ?? ({} as never)))).toMatchObject({
      ok: true,
      message: { attempt: 2, job: { attemptBase: 1 } },
    });
    expect(answer.job).toMatchObject({ status: 'retrying', attempt: 1, result: null });
    expect(answer.job.history).toEqual([
      {
        outcome: 'error',
        error: { type: 'Boom', message: 'c1 broke' },
        started_at: '2026-03-02T09:00:00Z',
        finished_at: '2026-03-02T09:00:01Z',
        duration_seconds: 1,
        attempt: 1,
      },
    ]);
    const listed = await h.ok<{ jobs: unknown[] }>({ action: 'list_jobs', status: 'error' });
    expect(listed.jobs).toEqual([]);
  });

  it('refuses jobs that did not fail for good, and a second retry of the same failure', async () => {
    const h = createHarness();
    await endAs(h, 'ok', 'cleanup', 'success');
    await endAs(h, 'bad', 'cleanup', 'abandoned');
    await h.ok({ action: 'retry_job', job_id: 'bad' });

    const success = errorOf(await h.call({ action: 'retry_job', job_id: 'ok' }));
    const again = errorOf(await h.call({ action: 'retry_job', job_id: 'bad' }));
    const missing = errorOf(await h.call({ action: 'retry_job', job_id: 'nope' }));

    expect(success).toEqual({
      code: 'job_not_retryable',
      message:
        "job 'ok' cannot be retried: it is success; only jobs that ended in error, missed_start_deadline or abandoned can be retried",
    });
    expect(again.code).toBe('job_not_retryable');
    expect(missing.code).toBe('job_not_found');
    expect(h.queue.messages.filter((message) => message.attempt === 2)).toHaveLength(1);
  });

  it('leaves the job parked for the tick when the queue refuses it', async () => {
    const h = createHarness();
    await endAs(h, 'c1', 'cleanup', 'error');
    h.queue.refuse = 'throw';

    await h.ok({ action: 'retry_job', job_id: 'c1' });

    h.clock.advance(10 * MINUTE);
    const due = await h.store.acquireDueJobs('tick', h.clock.now(), h.clock.now(), MINUTE, 10);
    expect(due.map((job) => [job.id, job.status, job.attemptBase])).toEqual([['c1', 'retrying', 1]]);
  });
});
