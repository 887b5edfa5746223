import { expect } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from '../worker/admin-and-worker';
import type { HarnessOptions } from '../worker/harness';

const MINUTE = 60 * SECOND;
const at = (ms: number) => new Date(ms).toISOString();

/** What ran, with its payload and when: `conflict_policy: replace` after the job's message was sent. */
export type ReplacedJobScenario = (options?: HarnessOptions) => Promise<{ payload: unknown; at: number }[]>;

function harness(options: HarnessOptions) {
  const runs: { payload: unknown; at: number }[] = [];
  const h = adminAndWorker(
    { report: { handler: async (payload: unknown) => void runs.push({ payload, at: h.clock.now() }) } },
    options,
  );
  /** Ticks and delivers minute by minute from `from` to `to` (minutes after T0). */
  const runMinutes = async (from: number, to: number) => {
    for (let minute = from; minute <= to; minute++) {
      h.clock.set(T0 + minute * MINUTE);
      await createTickHandler(() => h.deps)();
      await h.deliverDue(minute * 60);
    }
  };
  return { h, runs, runMinutes };
}

/** A job 20 minutes ahead (parked), sent by the tick 80 s ahead, then replaced an hour later (parked again). */
export const parkedThenReplaced: ReplacedJobScenario = async (options = {}) => {
  const { h, runs, runMinutes } = harness(options);
  const added = await h.admin({
    action: 'add_job',
    task: 'report',
    job_id: 'p',
    payload: { v: 1 },
    run_at: at(T0 + 20 * MINUTE),
  });
  expect(added.queued).toBe('parked');
  h.clock.set(T0 + 20 * MINUTE - 80 * SECOND);
  await createTickHandler(() => h.deps)();
  expect(h.queue.sent.map((message) => message.job.payload)).toEqual([{ v: 1 }]);
  h.clock.set(T0 + 20 * MINUTE - 60 * SECOND);
  const replaced = await h.admin({
    action: 'add_job',
    task: 'report',
    job_id: 'p',
    payload: { v: 2 },
    run_at: at(T0 + 80 * MINUTE),
    conflict_policy: 'replace',
  });
  expect(replaced).toMatchObject({ status: 'replaced', queued: 'parked' });
  await h.deliverDue(20 * 60);
  await runMinutes(21, 82);
  return runs;
};

/** A job 5 minutes ahead (sent with a delay), replaced at once an hour ahead (parked). */
export const delayedThenReplaced: ReplacedJobScenario = async (options = {}) => {
  const { h, runs, runMinutes } = harness(options);
  await h.admin({
    action: 'add_job',
    task: 'report',
    job_id: 'q',
    payload: { v: 1 },
    run_at: at(T0 + 5 * MINUTE),
  });
  await h.admin({
    action: 'add_job',
    task: 'report',
    job_id: 'q',
    payload: { v: 2 },
    run_at: at(T0 + 60 * MINUTE),
    conflict_policy: 'replace',
  });
  await runMinutes(1, 62);
  return runs;
};

export const REPLACEMENT_RUNS = {
  parked: [{ payload: { v: 2 }, at: T0 + 80 * MINUTE }],
  delayed: [{ payload: { v: 2 }, at: T0 + 60 * MINUTE }],
  /** The holder, then the replacement once the tick sent it and the holder's slot came free. */
  waiting: [
    { payload: { v: 0 }, at: T0 },
    { payload: { v: 2 }, at: T0 + 30 * SECOND },
  ],
};

/**
 * A job of a task at its limit waits in the task's line, and is replaced at the same run time while its
 * replacement's send fails (parked). The line's entry is of the first creation, whose wake-up the store
 * refuses to claim: the tick must send the replacement, which runs once the slot comes free.
 */
export const waitingThenReplaced: ReplacedJobScenario = async (options = {}) => {
  const runs: { payload: unknown; at: number }[] = [];
  let release: () => void = () => {};
  let holderStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (holderStarted = resolve));
  const h = adminAndWorker(
    {
      limited: {
        maxRunningJobs: 1,
        handler: async (payload: unknown, { jobId }) => {
          runs.push({ payload, at: h.clock.now() });
          if (jobId !== 'holder') return;
          holderStarted();
          await new Promise<void>((resolve) => (release = resolve));
        },
      },
    },
    options,
  );
  const take = (jobId: string) => {
    const index = h.queue.sent.findIndex((message) => message.job.id === jobId);
    const [message] = h.queue.sent.splice(index, 1);
    if (index < 0 || !message) throw new Error(`no message of ${jobId}`);
    return message;
  };
  const addJob = (jobId: string, payload: unknown, conflictPolicy = 'exception') =>
    h.admin({
      action: 'add_job',
      task: 'limited',
      job_id: jobId,
      payload,
      run_at: at(T0),
      conflict_policy: conflictPolicy,
    });
  h.clock.set(T0);
  await addJob('holder', { v: 0 });
  const holding = h.deliver(take('holder'));
  await started;
  await addJob('w', { v: 1 });
  await h.deliver(take('w'));
  expect(await h.deps.jobStore.waitingCount('limited')).toBe(1);
  h.queue.failWhen = (message) => message.job.id === 'w';
  expect(await addJob('w', { v: 2 }, 'replace')).toMatchObject({ status: 'replaced' });
  h.queue.failWhen = () => false;

  h.clock.set(T0 + 30 * SECOND);
  await createTickHandler(() => h.deps)();
  release();
  await holding;
  await h.deliverDue(60);
  await h.deliverDue(120);
  return runs;
};
