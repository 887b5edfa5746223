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
};
