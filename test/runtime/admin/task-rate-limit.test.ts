import { describe, expect, it } from 'vitest';
import type { WireTask } from '../../../lib/core/admin-contract';
import { jobRequest } from '../support';
import { createHarness, T0, testTasks } from './support/harness';

const tasks = testTasks({ 'call-api': { handler: () => undefined, rateLimit: { max: 5, perSeconds: 1 } } });

describe('rate-limited tasks in the admin API', () => {
  it('list_tasks shows each task’s rate limit (null without one)', async () => {
    const h = createHarness({ tasks });

    const { tasks: listed } = await h.ok<{ tasks: WireTask[] }>({ action: 'list_tasks' });

    expect(listed.map((task) => [task.id, task.rate_limit])).toEqual([
      ['call-api', { max: 5, per_seconds: 1 }],
      ['cleanup', null],
      ['send-report', null],
    ]);
  });

  it('resume_task wakes one job of a rate-limited task whose jobs never started, not the whole line', async () => {
    const h = createHarness({ tasks });
    await h.ok({ action: 'pause_task', task: 'call-api' });
    for (const id of ['a', 'b', 'c']) {
      await h.store.joinLine({
        message: { job: jobRequest(id, { task: 'call-api', runAt: T0 }), attempt: 1 },
        now: T0,
      });
    }

    const result = await h.ok<{ woken_jobs: number; task: WireTask }>({
      action: 'resume_task',
      task: 'call-api',
    });

    expect(result).toMatchObject({
      woken_jobs: 1,
      // The woken job counts as waiting until it starts
      task: { waiting: 3, rate_limit: { max: 5, per_seconds: 1 } },
    });
    expect(h.queue.messages.map((message) => [message.job.id, message.delaySeconds])).toEqual([['a', 0]]);
    expect((await h.store.lineHead('call-api'))?.message.job.id).toBe('b');
  });
});
