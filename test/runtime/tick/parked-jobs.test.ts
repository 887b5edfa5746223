import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { jobRequest, SECOND, T0, testRuntime } from '../support';

const RUN_AT = T0 + 20 * 60 * SECOND;

/** `count` jobs to run together 20 minutes after T0, parked in the due index. */
async function parkJobs(runtime: ReturnType<typeof testRuntime>, count: number) {
  for (let index = 0; index < count; index++) {
    await runtime.store.createJob({
      job: jobRequest(`job-${index}`, { runAt: RUN_AT, startDeadline: RUN_AT + 60 * SECOND }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: true,
    });
  }
}

describe('tick: parked jobs', () => {
  it('sends all of 1,000 parked jobs that come due together in one tick', async () => {
    // Prepare: 1,000 jobs with 60 s of grace, leased 100 at a time
    const runtime = testRuntime({ acquireBatchSize: 100 });
    await parkJobs(runtime, 1_000);
    runtime.clock.set(RUN_AT - 60 * SECOND);

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.parkedJobsSent).toBe(1_000);
    expect(new Set(runtime.queue.sent.map((message) => message.job.id)).size).toBe(1_000);
  });

  it('sends the other parked jobs when the queue rejects one, and tries that one once per tick', async () => {
    // Prepare
    const runtime = testRuntime({ acquireBatchSize: 10 });
    await parkJobs(runtime, 50);
    runtime.clock.set(RUN_AT - 60 * SECOND);
    let poisonAttempts = 0;
    runtime.queue.failWhen = (message) => {
      if (message.job.id !== 'job-0') return false;
      poisonAttempts += 1;
      return true;
    };

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.parkedJobsSent).toBe(49);
    expect(poisonAttempts).toBe(1);
  });

  it('stops sending parked jobs when the queue fails as a whole', async () => {
    // Prepare
    const runtime = testRuntime({ acquireBatchSize: 10 });
    await parkJobs(runtime, 50);
    runtime.clock.set(RUN_AT - 60 * SECOND);
    let sends = 0;
    runtime.queue.failWhen = () => true;
    runtime.queue.afterSend = () => void sends++;

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.parkedJobsSent).toBe(0);
    expect(sends).toBe(1);
  });

  it('stops leasing parked jobs when the tick’s budget is spent', async () => {
    // Prepare: each send takes 25 s of the 40 s budget
    const runtime = testRuntime({ acquireBatchSize: 10, tickBudgetMs: 40_000 });
    await parkJobs(runtime, 50);
    runtime.clock.set(RUN_AT - 60 * SECOND);
    runtime.queue.afterSend = () => runtime.clock.advance(25 * SECOND);

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.parkedJobsSent).toBe(20);
  });
});

describe('tick: parked jobs keep their overrides and metadata', () => {
  it('sends a parked job with the overrides and metadata it was added with', async () => {
    const runtime = testRuntime();
    await runtime.store.createJob({
      job: jobRequest('later', {
        runAt: RUN_AT,
        overrides: { maxAttempts: 1, timeoutSeconds: 5 },
        metadata: { tenant: 'acme' },
      }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: true,
    });
    runtime.clock.set(RUN_AT - 60 * SECOND);

    await createTickHandler(() => runtime.deps)();

    expect(runtime.queue.sent.map((message) => message.job)).toEqual([
      expect.objectContaining({
        id: 'later',
        overrides: { maxAttempts: 1, timeoutSeconds: 5 },
        metadata: { tenant: 'acme' },
      }),
    ]);
  });
});
