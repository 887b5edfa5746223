import { describe, expect, it } from 'vitest';
import { PAUSED_TASKS_REFRESH_MS } from '../../../lib/runtime/flow/paused-tasks';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { T0 } from '../support';
import { recordFor, workerHarness } from './harness';

describe('worker: paused tasks', () => {
  it.each([
    ['with maxRunningJobs', 2],
    ['without maxRunningJobs', undefined],
  ])(
    'keeps the jobs of a paused task %s waiting in its line, and runs them in order once resumed',
    async (_name, limit) => {
      // Prepare
      const ran: string[] = [];
      const worker = workerHarness({
        paused: {
          ...(limit && { maxRunningJobs: limit }),
          handler: (_payload, { jobId }) => void ran.push(jobId),
        },
      });
      const tick = createTickHandler(() => worker.deps);
      await worker.store.setTaskPaused('paused', true);

      // Act: two jobs come while paused; a tick runs; the task is resumed; the tick wakes the line
      const whilePaused = await worker.deliver([
        recordFor('second', 'paused', { runAt: T0 - 1_000 }),
        recordFor('first', 'paused', { runAt: T0 - 2_000 }),
      ]);
      const pausedTick = await tick();
      const waiting = await worker.store.waitingCount('paused');
      await worker.store.setTaskPaused('paused', false);
      worker.clock.advance(PAUSED_TASKS_REFRESH_MS);
      const resumedTick = await tick();
      await worker.deliver(worker.queuedRecords());

      // Assess
      expect(whilePaused.batchItemFailures).toEqual([]);
      expect(pausedTick.jobsWoken).toBe(0);
      expect(waiting).toBe(2);
      expect(resumedTick.jobsWoken).toBe(2);
      expect(ran).toEqual(['first', 'second']);
      expect(await worker.store.waitingCount('paused')).toBe(0);
    },
  );

  it('runs a job of a task without maxRunningJobs at once after a resume its worker had not read yet', async () => {
    // Prepare: the worker saw the task paused; the task is resumed within its refresh period
    const ran: string[] = [];
    const worker = workerHarness({ free: { handler: (_payload, { jobId }) => void ran.push(jobId) } });
    await worker.store.setTaskPaused('free', true);
    await worker.deliver([recordFor('while-paused', 'free')]);
    await worker.store.setTaskPaused('free', false);

    // Act: a job comes; its stale view puts it in the line, where the counter says the task runs
    await worker.deliver([recordFor('after-resume', 'free')]);
    await worker.deliver(worker.queuedRecords());

    // Assess: both run, without waiting for the refresh or a tick
    expect(ran.sort()).toEqual(['after-resume', 'while-paused']);
  });

  it('ends a job that waited past its start deadline as missed_start_deadline once it is woken', async () => {
    // Prepare
    let runs = 0;
    const worker = workerHarness({ paused: { maxRunningJobs: 1, handler: () => void runs++ } });
    await worker.store.setTaskPaused('paused', true);
    await worker.deliver([recordFor('late', 'paused', { startDeadline: T0 + 5_000 })]);

    // Act: resumed after the deadline
    worker.clock.advance(10_000);
    await worker.store.setTaskPaused('paused', false);
    await createTickHandler(() => worker.deps)();
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(runs).toBe(0);
    expect(await worker.store.getJob('late', worker.clock.now())).toMatchObject({
      status: 'missed_start_deadline',
    });
  });
});
