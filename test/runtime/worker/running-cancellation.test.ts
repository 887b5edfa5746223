import { describe, expect, it } from 'vitest';
import { isoUtc } from '../../../lib/core/instants';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { CANCEL_CHECK_MS } from '../../../lib/runtime/worker/cancel-watch';
import { jobRequest, SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import { recordFor, settle } from './harness';

/** A promise the test settles: `release` resolves it. */
function gate() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

/** Rejects with the signal's reason once it is aborted (a handler that honours its signal). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

type Platform = ReturnType<typeof adminAndWorker>;

const jobOf = (platform: Platform, id: string) => platform.store.getJob(id, platform.clock.now());

/** Attempt 1 of a direct job of `task`, due now. */
const messageFor = (id: string, task: string): JobMessage => ({
  job: jobRequest(id, { task, runAt: T0 }),
  attempt: 1,
  delaySeconds: 0,
});

/** Delivers whatever the queue holds, and what that sends, until it is empty. */
async function deliverQueued(platform: Platform): Promise<void> {
  for (let batch = platform.queue.drain(); batch.length > 0; batch = platform.queue.drain())
    for (const message of batch) await platform.deliver(message);
}

describe('worker: cancel_job of a running job', () => {
  it("aborts the handler's signal at the next check, ends the job cancelled once the handler settled, and hands its slot on", async () => {
    // Prepare: a task limited to 1; `export` waits for its signal, `next` waits in the line behind it
    const starts: string[] = [];
    let reason: unknown;
    const platform = adminAndWorker({
      exports: {
        maxRunningJobs: 1,
        timeoutSeconds: 600,
        retry: { maxAttempts: 3, backoffSeconds: 0 },
        events: 'all',
        handler: async (_payload, { jobId, signal }) => {
          starts.push(jobId);
          if (jobId !== 'export') return;
          try {
            await untilAborted(signal);
          } catch (error) {
            reason = error;
            throw error;
          }
        },
      },
    });
    const running = platform.deliverNearItsEnd([recordFor('export', 'exports')]);
    await settle();
    await platform.deliver(messageFor('next', 'exports'));

    // Act: cancel_job while it runs, then the worker's check comes
    const asked = (await platform.admin({ action: 'cancel_job', job_id: 'export' })) as {
      job: Record<string, unknown>;
    };
    const askedAgain = (await platform.admin({ action: 'cancel_job', job_id: 'export' })) as {
      job: Record<string, unknown>;
    };
    const beforeCheck = await jobOf(platform, 'export');
    await platform.advanceTimers(CANCEL_CHECK_MS);
    await running;
    await deliverQueued(platform);

    // Assess: asked while running (the first ask's time kept), stopped at the check, cancelled for good
    expect(asked.job).toMatchObject({ status: 'running', cancel_requested_at: isoUtc(T0) });
    expect(askedAgain.job.cancel_requested_at).toBe(asked.job.cancel_requested_at);
    expect(beforeCheck?.status).toBe('running');
    expect(reason).toMatchObject({ name: 'CancelledError' });
    const cancelled = await jobOf(platform, 'export');
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      attempt: 1,
      result: { outcome: 'cancelled', attempt: 1, error: { type: 'CancelledError' } },
    });
    expect(cancelled?.result?.startedAt).not.toBeNull();
    expect(cancelled?.result?.error?.message).toMatch(
      /settled \d+ ms after its signal was aborted \(it threw CancelledError\)/,
    );
    expect(starts).toEqual(['export', 'next']);
    expect((await jobOf(platform, 'next'))?.status).toBe('success');
    expect(await platform.store.runningCounts()).toEqual(new Map([['exports', 0]]));
    expect(platform.publisher.events.map((event) => `${event.type}`)).toContain('job.cancelled');
  });

  it('waits for a handler that ignores its signal, and says that it returned', async () => {
    const stubborn = gate();
    const platform = adminAndWorker({
      stubborn: { timeoutSeconds: 600, handler: () => stubborn.released },
    });
    const running = platform.deliver(messageFor('report', 'stubborn'));
    await settle();

    await platform.admin({ action: 'cancel_job', job_id: 'report' });
    await platform.advanceTimers(CANCEL_CHECK_MS);
    const whileIgnoring = await jobOf(platform, 'report');
    platform.clock.advance(3 * SECOND);
    stubborn.release();
    await running;

    expect(whileIgnoring?.status).toBe('running');
    const job = await jobOf(platform, 'report');
    expect(job).toMatchObject({ status: 'cancelled', result: { error: { type: 'CancelledError' } } });
    expect(job?.result?.error?.message).toBe(
      'cancel_job asked the running job to stop; it settled 3000 ms after its signal was aborted (it returned)',
    );
  });

  it('reads nothing for a handler that ends before the first check', async () => {
    const platform = adminAndWorker({ quick: { handler: () => 'done' } });
    let reads = 0;
    const isCancelRequested = platform.deps.jobStore.isCancelRequested.bind(platform.deps.jobStore);
    platform.deps.jobStore.isCancelRequested = (...args) => {
      reads += 1;
      return isCancelRequested(...args);
    };

    await platform.deliver(messageFor('a', 'quick'));
    await platform.deliver(messageFor('b', 'quick'));
    await platform.advanceTimers(10 * CANCEL_CHECK_MS);

    expect(reads).toBe(0);
    expect((await jobOf(platform, 'a'))?.status).toBe('success');
  });

  it('keeps the outcome of a handler that ended before the check, and ends the retry it asked for without running it', async () => {
    // Prepare: attempt 1 fails retryably once released
    const failing = gate();
    const starts: number[] = [];
    const platform = adminAndWorker({
      flaky: {
        timeoutSeconds: 600,
        retry: { maxAttempts: 3, backoffSeconds: 0 },
        handler: async (_payload, { attempt }) => {
          starts.push(attempt);
          await failing.released;
          throw new Error('upstream timed out');
        },
      },
    });
    const running = platform.deliver(messageFor('sync', 'flaky'));
    await settle();

    // Act: asked to stop, but the handler fails before the worker's check; its retry is delivered
    await platform.admin({ action: 'cancel_job', job_id: 'sync' });
    failing.release();
    await running;
    const afterFailure = await jobOf(platform, 'sync');
    await deliverQueued(platform);

    // Assess
    expect(afterFailure).toMatchObject({ status: 'retrying', cancelRequestedAt: T0 });
    expect(starts).toEqual([1]);
    const job = await jobOf(platform, 'sync');
    expect(job).toMatchObject({
      status: 'cancelled',
      attempt: 2,
      result: { outcome: 'cancelled', startedAt: null, error: { type: 'CancelledError' } },
    });
    expect(job?.result?.error?.message).toContain('no later attempt runs it');
  });

  it('ends a run whose worker vanished cancelled when the next attempt takes it over, without running it', async () => {
    const starts: string[] = [];
    const platform = adminAndWorker({
      plain: { timeoutSeconds: 10, handler: (_payload, { jobId }) => void starts.push(jobId) },
    });
    await platform.admin({ action: 'add_job', task: 'plain', job_id: 'orphan' });
    const [message] = platform.queue.drain();
    await platform.claimAndVanish(message);

    const asked = (await platform.admin({ action: 'cancel_job', job_id: 'orphan' })) as {
      job: { status: string };
    };
    platform.clock.advance(31 * SECOND);
    if (!message) throw new Error('no message');
    await platform.deliver({ ...message, attempt: 2 });

    expect(asked.job.status).toBe('running');
    expect(starts).toEqual([]);
    expect(await jobOf(platform, 'orphan')).toMatchObject({
      status: 'cancelled',
      attempt: 2,
      result: { error: { type: 'CancelledError' } },
    });
  });

  it('refuses a job that has ended, and lets retry_job run one whose cancellation came too late', async () => {
    const failing = gate();
    const platform = adminAndWorker({
      once: {
        timeoutSeconds: 600,
        retry: { maxAttempts: 1 },
        handler: async (_payload, { attempt }) => {
          if (attempt === 1) {
            await failing.released;
            throw new Error('failed for good');
          }
          return 'second time lucky';
        },
      },
    });
    const running = platform.deliver(messageFor('task-1', 'once'));
    await settle();
    await platform.admin({ action: 'cancel_job', job_id: 'task-1' });
    failing.release();
    await running;

    const refused = await platform.api({ action: 'cancel_job', job_id: 'task-1' });
    await platform.admin({ action: 'retry_job', job_id: 'task-1' });
    await deliverQueued(platform);

    expect(refused).toMatchObject({ ok: false, error: { code: 'job_not_cancellable' } });
    expect(await jobOf(platform, 'task-1')).toMatchObject({
      status: 'success',
      result: { returnValue: 'second time lucky' },
    });
    expect((await jobOf(platform, 'task-1'))?.cancelRequestedAt).toBeUndefined();
  });
});
