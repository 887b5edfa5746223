import { describe, expect, it } from 'vitest';
import { NonRetryableError } from '../../../lib/core/errors';
import { LIMITS } from '../../../lib/core/limits';
import { T0 } from '../support';
import { recordFor, settle, workerHarness } from './harness';

describe('worker: failures', () => {
  it('retries with exponential backoff and full jitter, then records the last error', async () => {
    // Prepare: random() is 0.5, so each delay is half its ceiling: 10 s, then 20 s
    let runs = 0;
    const worker = workerHarness({
      flaky: {
        retry: { maxAttempts: 3, backoffSeconds: 20, maxBackoffSeconds: 300 },
        handler: () => {
          runs += 1;
          throw new TypeError(`boom ${runs}`);
        },
      },
    });

    // Act: attempt 1
    await worker.deliver([recordFor('job-1', 'flaky', { startDeadline: T0 + 5_000 })]);
    const second = worker.queue.drain();
    const afterFirst = await worker.store.getJob('job-1', worker.clock.now());
    // Act: attempt 2, delivered at its run time
    worker.clock.set(second[0]?.job.runAt ?? 0);
    await worker.deliver(
      second.map((message) => recordFor(message.job.id, 'flaky', message.job, message.attempt)),
    );
    const third = worker.queue.drain();
    // Act: attempt 3
    worker.clock.set(third[0]?.job.runAt ?? 0);
    await worker.deliver(
      third.map((message) => recordFor(message.job.id, 'flaky', message.job, message.attempt)),
    );

    // Assess
    expect(runs).toBe(3);
    expect(afterFirst?.status).toBe('retrying');
    expect(second.map((message) => [message.attempt, message.delaySeconds, message.job.runAt - T0])).toEqual([
      [2, 10, 10_000],
    ]);
    expect(second[0]?.job.startDeadline).toBeNull();
    expect(third.map((message) => [message.attempt, message.delaySeconds])).toEqual([[3, 20]]);
    expect(worker.queue.sent).toEqual([]);
    const job = await worker.store.getJob('job-1', worker.clock.now());
    expect(job?.status).toBe('error');
    expect(job?.result).toMatchObject({
      outcome: 'error',
      attempt: 3,
      error: { type: 'TypeError', message: 'boom 3' },
    });
    expect(job?.result?.error?.stack).toContain('TypeError: boom 3');
  });

  it('stops retrying when the handler throws NonRetryableError', async () => {
    // Prepare
    let runs = 0;
    const worker = workerHarness({
      strict: {
        retry: { maxAttempts: 5 },
        handler: () => {
          runs += 1;
          throw new NonRetryableError('customer was deleted');
        },
      },
    });

    // Act
    await worker.deliver([recordFor('job-1', 'strict')]);

    // Assess
    expect(runs).toBe(1);
    expect(worker.queue.sent).toEqual([]);
    const job = await worker.store.getJob('job-1', T0);
    expect(job?.result).toMatchObject({
      outcome: 'error',
      attempt: 1,
      error: { type: 'NonRetryableError', message: 'customer was deleted' },
    });
  });

  it.each([
    [
      'an object without a prototype',
      () => Object.create(null),
      'NonErrorThrown',
      'handler threw a non-Error value: [object Object]',
    ],
    ['undefined', () => undefined, 'NonErrorThrown', 'handler threw a non-Error value: undefined'],
    [
      'an Error whose message is not a string',
      () => Object.assign(new Error('x'), { message: { code: 7 } }),
      'Error',
      '[object Object]',
    ],
    [
      'an Error whose name is huge and whose message throws when read',
      () => {
        const error = new Error('x');
        error.name = 'N'.repeat(10_000);
        Object.defineProperty(error, 'message', {
          get() {
            throw new Error('no');
          },
        });
        return error;
      },
      `${'N'.repeat(200)}… (9800 more characters)`,
      '',
    ],
  ])('records the failed run when the handler throws %s', async (_name, thrown, type, message) => {
    const worker = workerHarness({
      odd: {
        retry: { maxAttempts: 1 },
        handler: () => {
          throw thrown();
        },
      },
    });

    const response = await worker.deliver([recordFor('job-1', 'odd')]);

    expect(response.batchItemFailures).toEqual([]);
    expect((await worker.store.getJob('job-1', T0))?.result).toMatchObject({
      outcome: 'error',
      error: { type, message },
    });
  });

  it('records an error, without retrying, when the return value exceeds the size limit or is not JSON', async () => {
    // Prepare
    const worker = workerHarness({
      big: { retry: { maxAttempts: 3 }, handler: () => ({ blob: 'x'.repeat(LIMITS.returnValueBytes) }) },
      odd: { retry: { maxAttempts: 3 }, handler: () => ({ when: new Date(T0) }) as never },
    });

    // Act
    await worker.deliver([recordFor('big-1', 'big'), recordFor('odd-1', 'odd')]);

    // Assess
    const big = await worker.store.getJob('big-1', T0);
    expect(big?.result).toMatchObject({ outcome: 'error', error: { type: 'InvalidReturnValueError' } });
    expect(big?.result?.error?.message).toContain(
      `return value: must be at most ${LIMITS.returnValueBytes} bytes as UTF-8 JSON`,
    );
    const odd = await worker.store.getJob('odd-1', T0);
    expect(odd?.result?.error?.message).toBe(
      'return value.when: must be JSON: objects, arrays, strings, numbers, booleans and null only',
    );
    expect(worker.queue.sent).toEqual([]);
  });

  it('aborts the handler through its signal at the Lambda remaining time minus the safety margin', async () => {
    // Prepare: the Lambda has 3,080 ms left and the margin is 3,000 ms: an 80 ms deadline
    let abortedWith: unknown;
    const worker = workerHarness(
      {
        hang: {
          timeoutSeconds: 600,
          retry: { maxAttempts: 1 },
          handler: (_payload, { signal }) =>
            new Promise((_resolve, reject) => {
              signal.addEventListener('abort', () => {
                abortedWith = signal.reason;
                reject(signal.reason);
              });
            }),
        },
      },
      { workerSafetyMarginMs: 3_000 },
    );

    // Act
    const delivery = worker.deliver([recordFor('job-1', 'hang')], 3_080);
    await settle();
    await worker.advanceTimers(79);
    const beforeTheDeadline = abortedWith;
    await worker.advanceTimers(1);
    await delivery;

    // Assess
    expect(beforeTheDeadline).toBeUndefined();
    expect(abortedWith).toBeInstanceOf(Error);
    const job = await worker.store.getJob('job-1', worker.clock.now());
    expect(job?.result).toMatchObject({ outcome: 'error', error: { type: 'TimeoutError' } });
  });

  it('keeps the message when the retry message cannot be sent (never retrying without a message)', async () => {
    // Prepare
    const worker = workerHarness({
      flaky: {
        handler: () => {
          throw new Error('boom');
        },
      },
    });
    worker.queue.failWhen = () => true;

    const record = recordFor('job-1', 'flaky');

    // Act
    const response = await worker.deliver([record]);

    // Assess: the job stays running under its lease, and its message comes back (to take the run over after it)
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    const job = await worker.store.getJob('job-1', T0);
    expect(job?.status).toBe('running');
    expect(job?.leaseUntil).toBeGreaterThan(T0);
  });
});
