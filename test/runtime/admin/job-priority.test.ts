import { describe, expect, it } from 'vitest';
import type { AddedJob } from '../../../lib/core/admin-contract';
import { createHarness, errorOf, MINUTE, T0 } from './support/harness';

describe('add_job priority', () => {
  it('carries a critical priority in the job, its message and its answer, also when parked for later', async () => {
    const h = createHarness();

    const now = await h.ok<AddedJob>({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'urgent',
      priority: 'critical',
    });
    const normal = await h.ok<AddedJob>({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'usual',
      priority: 'normal',
    });
    const later = await h.ok<AddedJob>({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'urgent-later',
      priority: 'critical',
      run_at: new Date(T0 + 60 * MINUTE).toISOString(),
    });

    expect(now.job.priority).toBe('critical');
    expect(normal.job).not.toHaveProperty('priority');
    expect(h.queue.messages.map((message) => [message.job.id, message.job.priority])).toEqual([
      ['urgent', 'critical'],
      ['usual', undefined],
    ]);
    expect(later.queued).toBe('parked');
    // The jobs sent at once are due too by then (nobody claimed them): the tick would send them again
    const due = await h.store.acquireDueJobs('tick', T0 + 60 * MINUTE, T0 + 60 * MINUTE, MINUTE, 10);
    expect(due.find((job) => job.id === 'urgent-later')).toMatchObject({ priority: 'critical' });
  });

  it('refuses an unknown priority, naming the field and the levels, and writes nothing', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({ action: 'add_job', task: 'cleanup', job_id: 'x', priority: 'urgent' }),
    );

    expect(error).toMatchObject({
      code: 'invalid_input',
      details: [{ path: 'priority', message: expect.stringMatching(/critical, normal/) }],
    });
    expect(await h.store.getJob('x', T0)).toBeUndefined();
  });
});
