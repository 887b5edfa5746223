import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import type { TaskLimits } from '../../../lib/runtime/task-limits';
import { jobRequest, T0 } from '../support';
import { recordFor, workerHarness } from './harness';

/**
 * The tick wakes waiting jobs into the free slots of each task's limits as deployed (SUNDIAL_TASK_LIMITS),
 * not the counter's snapshot of the last claim's limit: a redeploy that raises or removes maxRunningJobs
 * while a long run holds the slot wakes the line at the next tick.
 */
describe('waiting lines after a deploy changed maxRunningJobs', () => {
  async function twoWaitingBehindALongRun() {
    const before = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await before.store.claimJob({
      job: jobRequest('holder', { task: 'limited' }),
      attempt: 1,
      owner: 'someone',
      now: T0,
      leaseUntil: T0 + 15 * 60_000,
      concurrencyLimit: 1,
    });
    await before.deliver([
      recordFor('b', 'limited', { runAt: T0 - 2_000 }),
      recordFor('c', 'limited', { runAt: T0 - 1_000 }),
    ]);
    expect(await before.store.waitingCount('limited')).toBe(2);
    before.queue.drain();
    return before.store;
  }

  async function afterDeploy(limits: TaskLimits | undefined, maxRunningJobs: number | undefined) {
    const store = await twoWaitingBehindALongRun();
    const started: string[] = [];
    const after = workerHarness(
      {
        limited: {
          ...(maxRunningJobs !== undefined && { maxRunningJobs }),
          handler: (_payload, { jobId }) => void started.push(jobId),
        },
      },
      { taskLimits: new Map(limits ? [['limited', limits]] : []) },
      { jobStore: store, scheduleStore: store },
    );
    after.clock.advance(60_000);
    const tick = await createTickHandler(() => after.deps)();
    await after.deliver(after.queuedRecords());
    return { woken: tick.jobsWoken, started, waiting: await store.waitingCount('limited') };
  }

  it('wakes the jobs the raised limit has room for at the next tick, while the long run goes on', async () => {
    const outcome = await afterDeploy({ maxRunningJobs: 3, rateLimit: null }, 3);

    expect(outcome).toEqual({ woken: 2, started: ['b', 'c'], waiting: 0 });
  });

  it('wakes the whole line when the limit was removed', async () => {
    const outcome = await afterDeploy(undefined, undefined);

    expect(outcome).toEqual({ woken: 2, started: ['b', 'c'], waiting: 0 });
  });
});
