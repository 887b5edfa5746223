import { describe, expect, it } from 'vitest';
import { T0 } from '../support';
import { recordFor, settle, workerHarness } from './harness';

/** A handler that ignores its signal and settles only when the test says so. */
function stubbornRun() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { released, release };
}

describe('worker: handlers that outlive their timeout', () => {
  it('keeps the slot until a timed-out handler that ignores its signal has settled, and runs the retry after it', async () => {
    // Prepare: a task limited to 1 whose first attempt of job-1 ignores its signal until released
    const stubborn = stubbornRun();
    const timeline: string[] = [];
    let running = 0;
    let maxRunning = 0;
    let firstSignal: AbortSignal | undefined;
    const worker = workerHarness({
      limited: {
        maxRunningJobs: 1,
        timeoutSeconds: 1,
        retry: { maxAttempts: 2, backoffSeconds: 0 },
        handler: async (_payload, { jobId, attempt, signal }) => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          timeline.push(`start ${jobId}#${attempt}`);
          if (jobId === 'job-1' && attempt === 1) {
            firstSignal = signal;
            await stubborn.released;
          }
          running -= 1;
          timeline.push(`end ${jobId}#${attempt}`);
        },
      },
    });

    // Act: the deadline passes while the handler goes on
    const first = worker.deliverNearItsEnd([recordFor('job-1', 'limited')]);
    await settle();
    await worker.advanceTimers(1_000);
    await settle();
    // Act: meanwhile, whatever the queue holds and another job of the task are delivered
    const during = await worker.deliver([...worker.queuedRecords(), recordFor('job-2', 'limited')]);
    const whileRunning = await worker.store.getJob('job-1', worker.clock.now());
    const waitingWhileRunning = await worker.store.waitingCount('limited');
    // Act: the handler settles; its slot is handed to job-2 in the line; all runs, one after the other
    stubborn.release();
    await first;
    const afterSettled = worker.queuedRecords();
    for (let batch = afterSettled; batch.length > 0; batch = worker.queuedRecords())
      await worker.deliver(batch);

    // Assess
    expect(firstSignal?.aborted).toBe(true);
    expect(maxRunning).toBe(1);
    expect(during.batchItemFailures).toHaveLength(0);
    expect(waitingWhileRunning).toBe(1);
    expect(whileRunning).toMatchObject({ status: 'running', attempt: 1, holdsSlot: true });
    expect(afterSettled.map((record) => JSON.parse(record.body).job.id)).toEqual(['job-1', 'job-2']);
    // The slot that came back went to job-2, which waited in line; the retry waited for the next one
    expect(timeline).toEqual([
      'start job-1#1',
      'end job-1#1',
      'start job-2#1',
      'end job-2#1',
      'start job-1#2',
      'end job-1#2',
    ]);
    const job = await worker.store.getJob('job-1', worker.clock.now());
    expect(job?.result).toMatchObject({ outcome: 'success', attempt: 2 });
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it("in Lambda, holds the run under its lease until the invocation's end, records the timeout, then ends the sandbox", async () => {
    // Prepare: 120 s of Lambda time, a 3 s safety margin, a 1 s timeout, and a handler that never settles
    const endings: { sentAttempts: number[] }[] = [];
    const worker = workerHarness(
      {
        stuck: {
          maxRunningJobs: 1,
          timeoutSeconds: 1,
          retry: { maxAttempts: 2 },
          handler: () => new Promise(() => {}),
        },
      },
      { workerSafetyMarginMs: 3_000, jobLeaseMarginSeconds: 30 },
      {
        endSandbox: () => {
          endings.push({ sentAttempts: worker.queue.sent.map((message) => message.attempt) });
        },
      },
    );

    // Act
    const delivery = worker.deliver([recordFor('job-1', 'stuck')], 120_000);
    await settle();
    const claimed = await worker.store.getJob('job-1', T0);
    const reapableBeforeTheEnd = await worker.store.findExpiredJobLeases(T0 + 117_000, 10);
    await worker.advanceTimers(1_000);
    await settle();
    const afterTheTimeout = await worker.store.getJob('job-1', T0);
    const sentAfterTheTimeout = worker.queue.sent.length;
    await worker.advanceTimers(116_000);
    const response = await delivery;

    // Assess: the lease covers the whole wait, so the reaper cannot return the slot meanwhile
    expect(claimed?.leaseUntil).toBeGreaterThanOrEqual(T0 + 120_000);
    expect(reapableBeforeTheEnd).toEqual([]);
    expect(afterTheTimeout?.status).toBe('running');
    expect(sentAfterTheTimeout).toBe(0);
    // Assess: at the invocation's end the timeout is recorded, and only then the sandbox is ended
    expect(endings).toEqual([{ sentAttempts: [2] }]);
    expect(response.batchItemFailures).toEqual([]);
    const job = await worker.store.getJob('job-1', T0);
    expect(job?.status).toBe('retrying');
    expect(job?.result?.error?.type).toBe('TimeoutError');
    expect(job?.result?.error?.message).toContain('still running');
  });

  it('in Lambda, wakes the job its slot is handed to with a message that arrives after the sandbox of a handler still running has ended', async () => {
    // Prepare: 120 s of Lambda time (the sandbox ends at T0 + 120 s), a 3 s margin, a task limited to
    // 1 whose job-1 never settles, and job-2 waiting in its line
    const worker = workerHarness(
      {
        stuck: {
          maxRunningJobs: 1,
          timeoutSeconds: 1,
          retry: { maxAttempts: 2 },
          handler: (_payload, { jobId }) => (jobId === 'job-1' ? new Promise(() => {}) : Promise.resolve()),
        },
      },
      { workerSafetyMarginMs: 3_000, jobLeaseMarginSeconds: 30 },
      { endSandbox: () => {} },
    );
    const delivery = worker.deliver([recordFor('job-1', 'stuck')], 120_000);
    await settle();
    await worker.advanceTimers(1_000);
    await settle();
    await worker.deliver([recordFor('job-2', 'stuck')]);
    const waiting = await worker.store.waitingCount('stuck');

    // Act: the invocation's end records job-1's timeout, which hands its slot to job-2
    await worker.advanceTimers(116_000);
    await delivery;

    // Assess: job-2's message comes after the sandbox ended (it stops job-1's handler), never beside it
    const woken = worker.queue.sent.find((message) => message.job.id === 'job-2');
    expect(waiting).toBe(1);
    expect(woken).toMatchObject({ woken: true });
    expect(worker.clock.now() + (woken?.delaySeconds ?? 0) * 1000).toBeGreaterThan(T0 + 120_000);
  });

  it('in Lambda, holds back the retry of a handler still running until after its sandbox has ended, however long the rest of the batch takes', async () => {
    // Prepare: job-a ignores its signal forever; job-b, in the same batch, has a slow result write
    const timeline: string[] = [];
    let endings = 0;
    let releaseOtherWrite: () => void = () => {};
    const otherWrite = new Promise<void>((resolve) => {
      releaseOtherWrite = resolve;
    });
    const worker = workerHarness(
      {
        stuck: {
          maxRunningJobs: 1,
          timeoutSeconds: 1,
          retry: { maxAttempts: 2, backoffSeconds: 0 },
          handler: async (_payload, { attempt }) => {
            timeline.push(`start stuck#${attempt} (sandboxes ended so far: ${endings})`);
            if (attempt === 1) await new Promise(() => {});
          },
        },
        other: { handler: () => 'ok' },
      },
      { workerSafetyMarginMs: 3_000, jobLeaseMarginSeconds: 30 },
      { endSandbox: () => void endings++ },
    );
    const finishJob = worker.store.finishJob.bind(worker.store);
    worker.store.finishJob = async (input) => {
      if (input.jobId === 'job-b') await otherWrite;
      return finishJob(input);
    };

    // Act: the invocation's soft end passes while job-b's write still hangs; another worker receives
    // what the queue holds, then the batch ends and, later, the queue delivers again
    const first = worker.deliver([recordFor('job-a', 'stuck'), recordFor('job-b', 'other')], 120_000);
    await settle();
    await worker.advanceTimers(117_000);
    await settle();
    await worker.deliver(worker.queuedRecords(), 120_000);
    releaseOtherWrite();
    await first;
    const retry = worker.queue.sent.find((message) => message.job.id === 'job-a' && message.attempt === 2);
    worker.clock.set(T0 + 122_000);
    await worker.deliver(worker.queuedRecords(), 120_000);

    // Assess: attempt 2 is due after the invocation's hard end (T0 + 120 s) and starts only then
    expect(retry?.job.runAt).toBeGreaterThan(T0 + 120_000);
    expect(timeline).toEqual([
      'start stuck#1 (sandboxes ended so far: 0)',
      'start stuck#2 (sandboxes ended so far: 1)',
    ]);
  });

  it('in Lambda, records the timeout once a late handler settles, and keeps the sandbox', async () => {
    // Prepare
    const stubborn = stubbornRun();
    let endings = 0;
    const worker = workerHarness(
      {
        slow: {
          timeoutSeconds: 1,
          retry: { maxAttempts: 1 },
          handler: async () => {
            await stubborn.released;
            return { done: true };
          },
        },
      },
      { workerSafetyMarginMs: 3_000 },
      { endSandbox: () => void endings++ },
    );

    // Act: the handler settles 5 s after its timeout, well before the invocation's end
    const delivery = worker.deliver([recordFor('job-1', 'slow')], 120_000);
    await settle();
    await worker.advanceTimers(6_000);
    const whileRunning = await worker.store.getJob('job-1', T0);
    stubborn.release();
    await delivery;

    // Assess
    expect(whileRunning?.status).toBe('running');
    expect(endings).toBe(0);
    const job = await worker.store.getJob('job-1', worker.clock.now());
    expect(job?.result).toMatchObject({ outcome: 'error', error: { type: 'TimeoutError' } });
    expect(job?.result?.error?.message).toContain('it settled 5000 ms after its signal was aborted');
  });

  it('tells the sandbox which job is past its deadline the moment its signal is aborted, and nothing of jobs that finish in time', async () => {
    // Prepare: in one batch, a handler that ignores its signal and one that finishes at once
    const told: { jobId: string; at: number; aborted: boolean }[] = [];
    let stuckSignal: AbortSignal | undefined;
    const worker = workerHarness(
      {
        stuck: {
          timeoutSeconds: 2,
          retry: { maxAttempts: 1 },
          handler: (_payload, { signal }) => {
            stuckSignal = signal;
            return new Promise(() => {});
          },
        },
        quick: { timeoutSeconds: 2, handler: () => 'ok' },
      },
      { workerSafetyMarginMs: 3_000 },
      {
        endSandbox: () => {},
        onHandlerDeadline: (jobId) =>
          told.push({ jobId, at: worker.clock.now(), aborted: stuckSignal?.aborted ?? false }),
      },
    );

    // Act: the timeout passes, then the invocation's end
    const delivery = worker.deliver(
      [recordFor('job-stuck', 'stuck'), recordFor('job-quick', 'quick')],
      60_000,
    );
    await settle();
    await worker.advanceTimers(1_999);
    const beforeTheDeadline = told.length;
    await worker.advanceTimers(1);
    const atTheDeadline = [...told];
    await worker.advanceTimers(60_000);
    await delivery;

    // Assess: told once, for the stuck job, as its signal was aborted
    expect(beforeTheDeadline).toBe(0);
    expect(atTheDeadline).toEqual([{ jobId: 'job-stuck', at: T0 + 2_000, aborted: true }]);
    expect(told).toHaveLength(1);
  });
});
