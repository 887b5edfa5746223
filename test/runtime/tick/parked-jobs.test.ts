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
    const runtime = testRuntime({ parkedBatchSize: 100 });
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
    const runtime = testRuntime({ parkedBatchSize: 10 });
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
    const runtime = testRuntime({ parkedBatchSize: 10 });
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
    const runtime = testRuntime({ parkedBatchSize: 10, tickBudgetMs: 40_000 });
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

describe('tick: jobs added for now whose send may have been lost', () => {
  const RESEND_AT = T0 + 5 * 60 * SECOND;

  /** A job added for T0 as the admin API stores it, with no message sent for it. */
  async function addUnsent(runtime: ReturnType<typeof testRuntime>, id: string) {
    const { job } = await runtime.store.createJob({
      job: jobRequest(id, { task: 'limited' }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
      resendIfUnclaimedAt: RESEND_AT,
    });
    return job;
  }

  it('sends one still unclaimed, as it was added: its delivery claims it', async () => {
    const runtime = testRuntime();
    await addUnsent(runtime, 'lost');
    runtime.clock.set(RESEND_AT);

    const summary = await createTickHandler(() => runtime.deps)();

    expect(summary.parkedJobsSent).toBe(1);
    const [message] = runtime.queue.sent;
    if (!message) throw new Error('nothing sent');
    const claim = await runtime.store.claimJob({
      job: message.job,
      attempt: message.attempt,
      owner: 'worker',
      now: RESEND_AT,
      leaseUntil: RESEND_AT + 60 * SECOND,
    });
    expect(claim.status).toBe('claimed');
    expect(await runtime.store.acquireDueJobs('tick', RESEND_AT, RESEND_AT * 2, 1, 10)).toEqual([]);
  });

  it('only takes one that waits in its task’s line out of the index: its line wakes it', async () => {
    const runtime = testRuntime();
    const waiting = await addUnsent(runtime, 'in-line');
    await addUnsent(runtime, 'lost');
    await runtime.store.joinLine({ message: { job: waiting, attempt: 1 }, now: T0 });
    runtime.clock.set(RESEND_AT);

    const summary = await createTickHandler(() => runtime.deps)();

    expect(runtime.queue.sent.map((message) => message.job.id)).toEqual(['lost']);
    expect(summary.parkedJobsSent).toBe(1);
    expect(await runtime.store.acquireDueJobs('tick', RESEND_AT, RESEND_AT * 2, 1, 10)).toEqual([]);
    expect(await runtime.store.waitingCount('limited')).toBe(1);
  });
});
