import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../lib/core/limits';
import type { AdminResponse } from '../../../lib/runtime/admin';
import { createHarness, errorOf, type Harness, MINUTE, SECOND, T0 } from './support/harness';

interface AddedJob {
  status: string;
  queued: string;
  job: Record<string, unknown> & { id: string };
}

describe('add_job', () => {
  it('stores a job and sends it to the queue at once', async () => {
    const h = createHarness();

    const result = await h.ok<AddedJob>({ action: 'add_job', task: 'cleanup', payload: { dir: '/tmp' } });

    expect(result).toEqual({
      status: 'added',
      queued: 'sent',
      job: {
        id: 'id-2',
        task: 'cleanup',
        payload: { dir: '/tmp' },
        origin: 'direct',
        schedule_id: null,
        fire_time: null,
        run_at: '2026-03-02T09:00:00Z',
        start_deadline: '2026-03-02T09:02:00Z',
        max_attempts: null,
        backoff_seconds: null,
        timeout_seconds: null,
        result_ttl_seconds: null,
        metadata: {},
        attempt: 0,
        status: 'queued',
        created_at: '2026-03-02T09:00:00Z',
        started_at: null,
        finished_at: null,
        expires_at: null,
        result: null,
      },
    });
    expect(h.queue.messages).toEqual([
      {
        job: {
          id: 'id-2',
          task: 'cleanup',
          payload: { dir: '/tmp' },
          origin: 'direct',
          scheduleId: null,
          fireTime: null,
          runAt: T0,
          startDeadline: T0 + 120 * SECOND,
          // The creation it was sent for: a message of a job replaced since runs nothing
          createToken: (await h.store.getJob('id-2', T0))?.createToken,
        },
        attempt: 1,
        delaySeconds: 0,
      },
    ]);
    expect(h.queue.messages[0]?.job.createToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('delays a job due within 15 minutes in the queue', async () => {
    const h = createHarness();

    await h.ok({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'soon',
      run_at: '2026-03-02T10:14:59.500+01:00',
    });

    expect(h.queue.messages.map((message) => [message.job.runAt, message.delaySeconds])).toEqual([
      [T0 + 899_500, 899],
    ]);
  });

  it('parks a job due later than the queue can delay it, for the tick to send', async () => {
    const h = createHarness();

    const result = await h.ok<AddedJob>({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'later',
      run_at: '2026-03-02T09:15:01Z',
    });

    expect(result.queued).toBe('parked');
    expect(h.queue.messages).toEqual([]);
    const due = await h.store.acquireDueJobs('tick', T0 + 14 * MINUTE, T0 + 16 * MINUTE, MINUTE, 10);
    expect(due.map((job) => job.id)).toEqual(['later']);
  });

  it('runs a job whose run_at has passed now', async () => {
    const h = createHarness();

    const result = await h.ok<AddedJob>({
      action: 'add_job',
      task: 'cleanup',
      run_at: '2026-03-01T00:00:00Z',
    });

    expect(result.job.run_at).toBe('2026-03-02T09:00:00Z');
    expect(h.queue.messages[0]?.delaySeconds).toBe(0);
  });

  it('parks a job the queue refuses, so that it is not lost', async () => {
    const h = createHarness();
    h.queue.refuse = new Set(['refused']);

    const result = await h.ok<AddedJob>({ action: 'add_job', task: 'cleanup', job_id: 'refused' });

    expect(result.queued).toBe('parked');
    const due = await h.store.acquireDueJobs('tick', T0, T0 + MINUTE, MINUTE, 10);
    expect(due.map((job) => job.id)).toEqual(['refused']);
    expect(h.logs.map((line) => line.message)).toEqual([
      'queue refused jobs; parking them in the due index for the tick',
    ]);
  });

  it('does not run a job again when the send throws after the queue took the message', async () => {
    // Prepare: the queue delivers each message to a worker that runs it, then the send call throws
    const h = createHarness();
    h.queue.send = async (messages) => {
      for (const message of messages) {
        const now = h.clock.now();
        await h.store.claimJob({
          job: message.job,
          attempt: 1,
          owner: 'worker',
          now,
          leaseUntil: now + MINUTE,
        });
        await h.store.finishJob({
          jobId: message.job.id,
          owner: 'worker',
          result: { outcome: 'success', startedAt: now, finishedAt: now, attempt: 1 },
          expiresAt: now + 60 * MINUTE,
        });
      }
      throw new Error('socket hang up');
    };

    // Act
    const result = await h.ok<AddedJob>({ action: 'add_job', task: 'cleanup', job_id: 'ran' });

    // Assess: the finished job stays finished and nothing waits for the tick to send it again
    expect(result).toMatchObject({ status: 'added', queued: 'sent' });
    expect(await h.store.getJob('ran', T0)).toMatchObject({ status: 'success', attempt: 1 });
    expect(await h.store.acquireDueJobs('tick', T0, T0 + 60 * MINUTE, MINUTE, 10)).toEqual([]);
  });

  it('parks a job whose send threw before the queue took it', async () => {
    const h = createHarness();
    h.queue.refuse = 'throw';

    const result = await h.ok<AddedJob>({ action: 'add_job', task: 'cleanup', job_id: 'unsent' });

    expect(result).toMatchObject({ status: 'added', queued: 'parked', job: { status: 'queued' } });
    const due = await h.store.acquireDueJobs('tick', T0, T0 + MINUTE, MINUTE, 10);
    expect(due.map((job) => job.id)).toEqual(['unsent']);
  });

  describe('a stored job whose send may be lost', () => {
    // The harness's tick looks 90 s ahead: a job still unclaimed 5 minutes after its run time is sent.
    const acquiredAt = async (h: Harness, at: number) =>
      (await h.store.acquireDueJobs('tick', at, at + 90 * SECOND, MINUTE, 10)).map((job) => job.id);

    it('is sent by the tick once overdue and unclaimed, when neither its send nor its parking went through', async () => {
      // Prepare: the send throws before the queue takes the job, and parking it fails too
      const h = createHarness();
      h.queue.refuse = 'throw';
      h.store.parkUnclaimedJob = async () => {
        throw new Error('throttled');
      };

      // Act
      const result = await h.ok<AddedJob>({ action: 'add_job', task: 'cleanup', job_id: 'stranded' });

      // Assess: accepted, and the tick sends it 5 minutes after its run time, not before
      expect(result).toMatchObject({ status: 'added', queued: 'parked', job: { status: 'queued' } });
      expect(await acquiredAt(h, T0 + 5 * MINUTE - SECOND)).toEqual([]);
      expect(await acquiredAt(h, T0 + 5 * MINUTE)).toEqual(['stranded']);
      expect(h.logs.map((line) => line.message)).toContain(
        'job neither sent nor parked; the tick sends it if still unclaimed',
      );
    });

    it('is sent by the tick when its write applied but the answer was lost, and the retry with do_nothing kept it', async () => {
      // Prepare: the store applies the first write of the job and then fails, as a lost answer does
      const h = createHarness();
      const createJob = h.store.createJob.bind(h.store);
      let calls = 0;
      h.store.createJob = async (input) => {
        const created = await createJob(input);
        calls += 1;
        if (calls === 1) throw new Error('the write was applied, but its answer was lost');
        return created;
      };
      const add = { action: 'add_job', task: 'cleanup', job_id: 'once', conflict_policy: 'do_nothing' };

      // Act
      const failed = await h.call(add);
      const kept = await h.ok<AddedJob>(add);

      // Assess: nothing was sent, yet the job is not lost
      expect(failed.ok).toBe(false);
      expect(kept).toMatchObject({ status: 'kept', queued: 'not_sent' });
      expect(h.queue.messages).toEqual([]);
      expect(await acquiredAt(h, T0 + 5 * MINUTE)).toEqual(['once']);
    });

    it('is not sent again once a worker claimed it', async () => {
      const h = createHarness();
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'claimed' });
      const [message] = h.queue.messages;
      if (!message) throw new Error('no message');
      await h.store.claimJob({ job: message.job, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });

      expect(await acquiredAt(h, T0 + 60 * MINUTE)).toEqual([]);
    });
  });

  describe('conflict policies', () => {
    it('rejects an existing job id by default', async () => {
      const h = createHarness();
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'once' });

      const error = errorOf(await h.call({ action: 'add_job', task: 'cleanup', job_id: 'once' }));

      expect(error.code).toBe('conflicting_id');
      expect(error.message).toMatch(/^job 'once' already exists/);
      expect(h.queue.messages).toHaveLength(1);
    });

    it('keeps the job and sends nothing with do_nothing', async () => {
      const h = createHarness();
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'once', payload: 1 });

      const result = await h.ok<AddedJob>({
        action: 'add_job',
        task: 'cleanup',
        job_id: 'once',
        payload: 2,
        conflict_policy: 'do_nothing',
      });

      expect(result).toMatchObject({ status: 'kept', queued: 'not_sent', job: { payload: 1 } });
      expect(h.queue.messages).toHaveLength(1);
    });

    it('replaces a queued job and sends the new one with replace', async () => {
      const h = createHarness();
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'once', payload: 1 });

      const result = await h.ok<AddedJob>({
        action: 'add_job',
        task: 'cleanup',
        job_id: 'once',
        payload: 2,
        conflict_policy: 'replace',
      });

      expect(result).toMatchObject({ status: 'replaced', queued: 'sent', job: { payload: 2 } });
      expect(h.queue.messages.map((message) => message.job.payload)).toEqual([1, 2]);
    });
  });
});

describe('add_jobs', () => {
  it('adds the valid items and answers each item on its own, in order', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'taken' });
    h.queue.messages.length = 0;

    const result = await h.ok<{ added: number; failed: number; results: AdminResponse[] }>({
      action: 'add_jobs',
      jobs: [
        { task: 'send-report', job_id: 'r1', payload: { team: 'ops' } },
        { task: 'send-report', job_id: 'r2', payload: { team: 3 } },
        { task: 'nope', job_id: 'n1' },
        { task: 'cleanup', job_id: 'taken' },
        'not a job',
        { task: 'cleanup', job_id: 'c1', run_at: '2026-03-02T12:00:00Z', urgency: 1 },
        { task: 'cleanup', job_id: 'c2', run_at: '2026-03-02T12:00:00Z' },
      ],
    });

    expect(result.added).toBe(2);
    expect(result.failed).toBe(5);
    expect(result.results.map((item) => (item.ok ? 'ok' : item.error.code))).toEqual([
      'ok',
      'invalid_input',
      'unknown_task',
      'conflicting_id',
      'invalid_input',
      'invalid_input',
      'ok',
    ]);
    expect(errorOf(result.results[1] as AdminResponse).message).toBe(
      'jobs[1].payload.team: Invalid input: expected string, received number',
    );
    expect(errorOf(result.results[4] as AdminResponse).message).toBe(
      "jobs[4]: must be an object (got 'not a job')",
    );
    expect(errorOf(result.results[5] as AdminResponse).message).toBe(
      'jobs[5].urgency: is not a known field; allowed fields: task, payload, run_at, job_id, conflict_policy, max_attempts, backoff_seconds, timeout_seconds, result_ttl_seconds, misfire_grace_seconds, metadata, priority',
    );
    expect(h.queue.messages.map((message) => message.job.id)).toEqual(['r1']);
    expect(await h.store.getJob('c2', T0)).toMatchObject({
      status: 'queued',
      runAt: Date.parse('2026-03-02T12:00:00Z'),
    });
    expect(await h.store.getJob('c1', T0)).toBeUndefined();
    expect(await h.store.getJob('r2', T0)).toBeUndefined();
  });

  it(`rejects more than ${LIMITS.bulkJobs} jobs as a whole, writing nothing`, async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({
        action: 'add_jobs',
        jobs: Array.from({ length: LIMITS.bulkJobs + 1 }, () => ({ task: 'cleanup' })),
      }),
    );

    expect(error.message).toBe('jobs: must hold at most 1000 jobs; split larger batches');
    expect(h.writes).toEqual([]);
  });

  it('sends all the jobs of a large batch', async () => {
    const h = createHarness();

    const result = await h.ok<{ added: number }>({
      action: 'add_jobs',
      jobs: Array.from({ length: LIMITS.bulkJobs }, (_, index) => ({
        task: 'cleanup',
        job_id: `bulk-${index}`,
      })),
    });

    expect(result.added).toBe(LIMITS.bulkJobs);
    expect(new Set(h.queue.messages.map((message) => message.job.id)).size).toBe(LIMITS.bulkJobs);
  });
});
