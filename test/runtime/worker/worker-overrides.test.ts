import { describe, expect, it } from 'vitest';
import type { JobContext } from '../../../lib/runtime/tasks/define-task';
import { T0 } from '../support';
import { recordFor, workerHarness } from './harness';

describe('worker: a job’s overrides of its task’s run settings', () => {
  it('stops after the job’s max_attempts, though its task allows more', async () => {
    let runs = 0;
    const worker = workerHarness({
      flaky: {
        retry: { maxAttempts: 5 },
        handler: () => {
          runs += 1;
          throw new Error('down');
        },
      },
    });

    await worker.deliver([recordFor('job-1', 'flaky', { overrides: { maxAttempts: 1 } })]);

    expect(runs).toBe(1);
    expect(worker.queue.drain()).toEqual([]);
    expect((await worker.store.getJob('job-1', worker.clock.now()))?.status).toBe('error');
  });

  it('retries with the job’s backoff, and the retry keeps the job’s overrides and metadata', async () => {
    // random() is 0.5: the first retry waits half the backoff
    const worker = workerHarness({
      flaky: {
        retry: { maxAttempts: 1, backoffSeconds: 2 },
        handler: () => {
          throw new Error('down');
        },
      },
    });
    const overrides = { maxAttempts: 2, backoffSeconds: 600 };

    await worker.deliver([recordFor('job-1', 'flaky', { overrides, metadata: { tenant: 'acme' } })]);

    const [retry] = worker.queue.drain();
    expect(retry).toMatchObject({ attempt: 2, job: { overrides, metadata: { tenant: 'acme' } } });
    expect((retry?.job.runAt ?? 0) - T0).toBe(300_000);
  });

  it('gives the handler the job’s shorter timeout as its deadline', async () => {
    const deadlines: number[] = [];
    const worker = workerHarness({
      slow: {
        timeoutSeconds: 60,
        handler: (_payload: unknown, context: JobContext) => {
          deadlines.push(context.deadline.getTime() - worker.clock.now());
        },
      },
    });

    await worker.deliver([recordFor('short', 'slow', { overrides: { timeoutSeconds: 5 } })]);
    await worker.deliver([recordFor('long', 'slow', { overrides: { timeoutSeconds: 900 } })]);
    await worker.deliver([recordFor('plain', 'slow')]);

    // An override above the task's timeout (accepted before the task's was lowered) gets the task's.
    expect(deadlines).toEqual([5_000, 60_000, 60_000]);
  });

  it('keeps the result for the job’s result TTL', async () => {
    const worker = workerHarness({ quick: { resultTtlSeconds: 3600, handler: () => 'done' } });

    await worker.deliver([recordFor('job-1', 'quick', { overrides: { resultTtlSeconds: 60 } })]);

    const job = await worker.store.getJob('job-1', worker.clock.now());
    expect(job?.expiresAt).toBe((job?.finishedAt ?? 0) + 60_000);
  });
});

describe('worker: a job of a task it does not know', () => {
  it('keeps its error result for the job’s result TTL', async () => {
    const worker = workerHarness({});

    await worker.deliver([recordFor('lost', 'gone', { overrides: { resultTtlSeconds: 60 } })]);

    const job = await worker.store.getJob('lost', worker.clock.now());
    expect(job?.result?.error?.type).toBe('UnknownTaskError');
    expect(job?.expiresAt).toBe((job?.finishedAt ?? 0) + 60_000);
  });
});

describe('worker: metadata', () => {
  it('hands the job’s metadata to the handler, and {} to a job without any', async () => {
    const seen: Array<Readonly<Record<string, string>>> = [];
    const worker = workerHarness({
      echo: {
        handler: (_payload: unknown, { metadata }: JobContext) => {
          seen.push(metadata);
        },
      },
    });

    await worker.deliver([recordFor('with', 'echo', { metadata: { tenant: 'acme', tier: 'gold' } })]);
    await worker.deliver([recordFor('without', 'echo')]);

    expect(seen).toEqual([{ tenant: 'acme', tier: 'gold' }, {}]);
    expect((await worker.store.getJob('with', worker.clock.now()))?.metadata).toEqual({
      tenant: 'acme',
      tier: 'gold',
    });
  });
});
