import { describe, expect, it } from 'vitest';
import { jobRequest, sqsRecord, T0 } from '../support';
import { recordFor, workerHarness } from './harness';

describe('worker: running jobs', () => {
  it('runs the handler and records a success result that expires after resultTtlSeconds', async () => {
    // Prepare
    const calls: unknown[] = [];
    const worker = workerHarness({
      echo: {
        resultTtlSeconds: 3600,
        handler: (payload, context) => {
          calls.push({ payload, attempt: context.attempt, jobId: context.jobId });
          return { echoed: payload };
        },
      },
    });

    // Act
    const response = await worker.deliver([recordFor('job-1', 'echo', { payload: { n: 7 } })]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toEqual([{ payload: { n: 7 }, attempt: 1, jobId: 'job-1' }]);
    const job = await worker.store.getJob('job-1', T0);
    expect(job?.status).toBe('success');
    expect(job?.result).toMatchObject({
      outcome: 'success',
      returnValue: { echoed: { n: 7 } },
      attempt: 1,
      startedAt: T0,
    });
    expect(job?.expiresAt).toBe(T0 + 3600 * 1000);
    expect(await worker.store.getJob('job-1', T0 + 3600 * 1000 + 1)).toBeUndefined();
  });

  it('keeps the results of a task without resultTtlSeconds for the deployment default', async () => {
    // Prepare: SUNDIAL_DEFAULT_RESULT_TTL_SECONDS=600
    const worker = workerHarness({ echo: { handler: () => null } }, { defaultResultTtlSeconds: 600 });

    // Act
    await worker.deliver([recordFor('job-1', 'echo')]);

    // Assess
    expect((await worker.store.getJob('job-1', T0))?.expiresAt).toBe(T0 + 600 * 1000);
  });

  it('does not run a job twice when its message is duplicated in a batch or redelivered later', async () => {
    // Prepare
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    const record = recordFor('job-1', 'echo');

    // Act
    const first = await worker.deliver([record, { ...record, messageId: 'copy' }]);
    const redelivered = await worker.deliver([{ ...record, messageId: 'later' }]);

    // Assess: a copy that arrives while the run is live comes back after it (then it is dropped)
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'copy' }]);
    expect(redelivered.batchItemFailures).toEqual([]);
  });

  it('finishes a job past its start deadline as missed_start_deadline without running it', async () => {
    // Prepare: the job had to start by T0 + 5 s; it is delivered at T0 + 6 s
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    worker.clock.set(T0 + 6_000);

    // Act
    const response = await worker.deliver([recordFor('late', 'echo', { startDeadline: T0 + 5_000 })]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(runs).toBe(0);
    const job = await worker.store.getJob('late', T0 + 6_000);
    expect(job?.result).toMatchObject({ outcome: 'missed_start_deadline', startedAt: null });
    expect(worker.publisher.events.map((event) => event.type)).toEqual(['job.missed']);
  });

  it('never runs a job past its start deadline, even when its missed write failed and its claim is taken over', async () => {
    // Prepare: the write that records the miss fails once (a crash or throttling after the claim)
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    const finishJob = worker.store.finishJob.bind(worker.store);
    let failNext = true;
    worker.store.finishJob = async (input) => {
      if (!failNext) return finishJob(input);
      failNext = false;
      throw new Error('crash between claim and finish');
    };
    const record = recordFor('late', 'echo', { startDeadline: T0 + 5_000 });
    worker.clock.set(T0 + 10_000);

    // Act: the message comes back, and again once the no-run claim's lease (60 s) has ended
    const first = await worker.deliver([record]);
    worker.clock.set(T0 + 71_000);
    await worker.deliver([record]);

    // Assess
    expect(first.batchItemFailures).toHaveLength(1);
    expect(runs).toBe(0);
    expect(await worker.store.getJob('late', T0 + 71_000)).toMatchObject({
      status: 'missed_start_deadline',
      result: { outcome: 'missed_start_deadline', startedAt: null },
    });
  });

  it('finishes a job of an unknown task as an error that names the known tasks, instead of retrying it', async () => {
    // Prepare
    const worker = workerHarness({ echo: { handler: () => null } });

    // Act
    const response = await worker.deliver([recordFor('job-x', 'no-such-task')]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const job = await worker.store.getJob('job-x', T0);
    expect(job?.result?.outcome).toBe('error');
    expect(job?.result?.error).toMatchObject({ type: 'UnknownTaskError' });
    expect(job?.result?.error?.message).toContain("task 'no-such-task' is not registered");
    expect(job?.result?.error?.message).toContain('echo');
    expect(worker.queue.sent).toEqual([]);
  });

  it('reports an unreadable message as a batch item failure and logs no part of its body', async () => {
    // Prepare
    const worker = workerHarness({ echo: { handler: () => null } });
    const good = recordFor('good', 'echo');
    const notJson = { ...recordFor('bad-1', 'echo'), body: 'secret-token-123 {' };
    const wrongShape = {
      ...recordFor('bad-2', 'echo'),
      body: JSON.stringify({ v: 1, job: { password: 'hunter2' } }),
    };

    // Act
    const response = await worker.deliver([good, notJson, wrongShape]);

    // Assess
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: notJson.messageId },
      { itemIdentifier: wrongShape.messageId },
    ]);
    expect((await worker.store.getJob('good', T0))?.status).toBe('success');
    const logs = JSON.stringify(worker.logLines);
    expect(logs).toContain('unreadable job message');
    expect(logs).not.toContain('secret-token-123');
    expect(logs).not.toContain('hunter2');
  });

  it('waits out the sub-second rest before the run time, so the job starts at its time and not early', async () => {
    // Prepare: SQS delivered the message 400 ms before its run time (delays are whole seconds)
    const startedAt: number[] = [];
    const worker = workerHarness({ echo: { handler: () => void startedAt.push(worker.clock.now()) } });

    // Act
    worker.clock.set(T0 - 400);
    await worker.deliver([recordFor('job-1', 'echo', { runAt: T0 })]);

    // Assess
    expect(worker.waits).toEqual([400]);
    expect(startedAt).toEqual([T0]);
  });

  it('sends a message that arrived more than a second early back to the queue with the remaining delay', async () => {
    // Prepare: a job 20 minutes ahead went through the queue with the 900 s maximum delay
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    worker.clock.set(T0 - 300_500);

    // Act
    const response = await worker.deliver([recordFor('far', 'echo', { runAt: T0 })]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(runs).toBe(0);
    expect(
      worker.queue.sent.map((message) => [message.job.id, message.attempt, message.delaySeconds]),
    ).toEqual([['far', 1, 300]]);
  });

  it('re-sends an early fire with every mark its message had (revision, task log)', async () => {
    // Prepare: a fire of a schedule, 5 minutes ahead, noted in its task's fire log
    const worker = workerHarness({ echo: { handler: () => null } });
    worker.clock.set(T0 - 300_500);
    const fire = {
      job: jobRequest('fire-1', { origin: 'schedule', scheduleId: 's-1', fireTime: T0, runAt: T0 }),
      attempt: 1,
      revision: { createdAt: T0 - 3_600_000, version: 2, firesFrom: T0 - 3_600_000 },
      taskLogged: true as const,
    };

    // Act
    await worker.deliver([sqsRecord(fire)]);

    // Assess: it is still checked against its revision, and its claim still leaves the task index out
    expect(worker.queue.sent).toEqual([{ ...fire, delaySeconds: 300 }]);
  });

  it('finishes as abandoned an attempt that the retry policy no longer allows (sent by the reaper)', async () => {
    // Prepare: the task allows 2 attempts; the reaper sent attempt 3 after attempt 2's worker vanished
    let runs = 0;
    const worker = workerHarness({ echo: { retry: { maxAttempts: 2 }, handler: () => void runs++ } });

    // Act
    await worker.deliver([recordFor('job-1', 'echo', {}, 3)]);

    // Assess
    expect(runs).toBe(0);
    const job = await worker.store.getJob('job-1', T0);
    expect(job?.result).toMatchObject({ outcome: 'abandoned', error: { type: 'JobAbandonedError' } });
  });

  it('counts attempts from a retry_job on: its attempt runs, and a failure retries within the policy', async () => {
    // Prepare: the task allows 2 attempts; attempts 1 and 2 failed, then retry_job sent attempt 3
    const attempts: number[] = [];
    const worker = workerHarness({
      flaky: {
        retry: { maxAttempts: 2 },
        handler: (_payload, context) => {
          attempts.push(context.attempt);
          throw new Error('still broken');
        },
      },
    });

    // Act
    await worker.deliver([recordFor('job-1', 'flaky', { attemptBase: 2 }, 3)]);

    // Assess: attempt 3 ran and failed; attempt 4 (the policy's second since the retry) is on its way
    expect(attempts).toEqual([3]);
    expect(worker.queue.sent.map((message) => [message.attempt, message.job.attemptBase])).toEqual([[4, 2]]);
    expect((await worker.store.getJob('job-1', T0))?.status).toBe('retrying');
  });

  it('passes the payload as parsed by the payloadSchema, and rejects one that no longer matches without retrying', async () => {
    // Prepare
    const { z } = await import('zod');
    const seen: unknown[] = [];
    const worker = workerHarness({
      greet: {
        payloadSchema: z.object({ name: z.string(), greeting: z.string().default('hello') }),
        retry: { maxAttempts: 5 },
        handler: (payload) => void seen.push(payload),
      },
    });

    // Act
    await worker.deliver([
      recordFor('ok', 'greet', { payload: { name: 'Ada' } }),
      recordFor('bad', 'greet', { payload: { name: 42 } }),
    ]);

    // Assess
    expect(seen).toEqual([{ name: 'Ada', greeting: 'hello' }]);
    const bad = await worker.store.getJob('bad', T0);
    expect(bad?.result).toMatchObject({ outcome: 'error', error: { type: 'InvalidPayloadError' } });
    expect(bad?.result?.error?.message).toContain('name');
    expect(worker.queue.sent).toEqual([]);
  });
});

describe('worker: the timeout counts from the handler start', () => {
  it('gives the handler its whole timeout even when the claim took a while (a throttled store)', async () => {
    // Prepare: the claim takes 2.5 s of the task's 3 s timeout; the handler then works 0.8 s
    let worker: ReturnType<typeof workerHarness> | undefined;
    const base = workerHarness({ slow: { handler: () => null } });
    const slowClaims = new Proxy(base.store, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property !== 'claimJob' || typeof value !== 'function') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          const claimed = await value.apply(target, args);
          worker?.clock.advance(2_500);
          return claimed;
        };
      },
    });
    worker = workerHarness(
      {
        slow: {
          timeoutSeconds: 3,
          handler: async () => {
            await worker?.deps.sleep(800);
            return { done: true };
          },
        },
      },
      {},
      { jobStore: slowClaims },
    );

    // Act: the handler's 0.8 s pass on the test clock
    await worker.deliver([recordFor('slow-claim-1', 'slow')]);

    // Assess
    const job = await base.store.getJob('slow-claim-1', worker.clock.now());
    expect(job?.result).toMatchObject({ outcome: 'success', returnValue: { done: true }, attempt: 1 });
  });
});
