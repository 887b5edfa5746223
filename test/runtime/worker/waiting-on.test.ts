import { describe, expect, it } from 'vitest';
import { adminAndWorker } from './admin-and-worker';
import { settle } from './harness';

interface Shown {
  id: string;
  status: string;
  waiting_on?: unknown[];
}

describe('get_job and list_jobs: what a job that has not started waits on', () => {
  it("names its task's limits without room, and nothing once a slot is free", async () => {
    // Prepare: a task limited to 1 whose first job runs until released; the second waits in its line
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const platform = adminAndWorker({
      reports: {
        maxRunningJobs: 1,
        handler: (_payload, { jobId }) => (jobId === 'first' ? released : 'done'),
      },
    });
    await platform.admin({ action: 'add_job', task: 'reports', job_id: 'first' });
    await platform.admin({ action: 'add_job', task: 'reports', job_id: 'second' });
    const [first, second] = platform.queue.drain();
    if (!first || !second) throw new Error('the jobs were not sent');
    const running = platform.deliver(first);
    await settle();
    await platform.deliver(second);

    // Act
    const full = (await platform.admin({ action: 'get_job', job_id: 'second' })) as { job: Shown };
    await platform.admin({ action: 'pause_task', task: 'reports' });
    const listed = (await platform.admin({ action: 'list_jobs', task: 'reports' })) as { jobs: Shown[] };
    await platform.admin({ action: 'resume_task', task: 'reports' });
    release();
    await running;
    const after = (await platform.admin({ action: 'get_job', job_id: 'second' })) as { job: Shown };

    // Assess
    expect(full.job).toMatchObject({
      status: 'queued',
      waiting_on: [{ constraint: 'max_running_jobs', running: 1, limit: 1 }],
    });
    const byId = Object.fromEntries(
      listed.jobs.map(({ id, status, waiting_on }) => [id, { status, waiting_on }]),
    );
    expect(byId).toEqual({
      first: { status: 'running', waiting_on: undefined },
      second: {
        status: 'queued',
        waiting_on: [{ constraint: 'paused' }, { constraint: 'max_running_jobs', running: 1, limit: 1 }],
      },
    });
    expect(after.job.waiting_on).toBeUndefined();
  });
});
