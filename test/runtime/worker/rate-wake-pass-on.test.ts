import { describe, expect, it } from 'vitest';
import { startIntervalMs } from '../../../lib/core/model/rate-limit';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { jobRequest, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import { recordFor, workerHarness } from './harness';

const RATE = { max: 1, perSeconds: 10 };
const INTERVAL = startIntervalMs(RATE);

describe('a rate-limited wake-up that brings no start is passed on', () => {
  it('wakes the next waiting job when the woken one missed its start deadline', async () => {
    const started: [string, number][] = [];
    const worker = workerHarness({
      rated: {
        rateLimit: RATE,
        handler: (_payload, { jobId }) => void started.push([jobId, worker.clock.now()]),
      },
    });
    // a starts; b (deadline T0+5 s) and c (no deadline) wait; b is woken for a's next start
    await worker.deliver([recordFor('a', 'rated', { runAt: T0 - 3 })]);
    await worker.deliver([recordFor('b', 'rated', { runAt: T0 - 2, startDeadline: T0 + 5_000 })]);
    await worker.deliver([recordFor('c', 'rated', { runAt: T0 - 1 })]);
    expect(worker.queue.sent.map((m) => m.job.id)).toEqual(['b']);

    // b's wake-up arrives (SQS delay) in the second before the next start, past b's deadline
    const [wake] = worker.queue.sent;
    worker.clock.advance((wake?.delaySeconds ?? 0) * 1000);
    await worker.deliver(worker.queuedRecords());
    const passedOn = worker.queue.sent.map((m) => m.job.id);

    // whatever was passed on is delivered when due
    for (let round = 0; round < 3 && worker.queue.sent.length > 0; round++) {
      const [next] = worker.queue.sent;
      worker.clock.advance((next?.delaySeconds ?? 0) * 1000);
      await worker.deliver(worker.queuedRecords());
    }

    expect(passedOn).toEqual(['c']); // the wake-up b brought is passed on to c
    expect(started.map(([id]) => id)).toEqual(['a', 'c']);
    expect(await worker.store.waitingCount('rated')).toBe(0);
    expect(started[1]?.[1]).toBeLessThan(T0 + INTERVAL + 1_000);
  });

  it('wakes the next waiting job when the woken one is a fire its schedule no longer wants', async () => {
    const started: string[] = [];
    const h = adminAndWorker({
      rated: { rateLimit: RATE, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    await h.admin({
      action: 'add_schedule',
      id: 'beat',
      task: 'rated',
      trigger: { type: 'interval', seconds: 600, start_at: new Date(T0 + 1_000).toISOString() },
    });
    await h.tick();
    const fire = h.queue.drain().find((message) => message.job.scheduleId === 'beat');
    // a takes the start; the fire, then c, wait; the fire is woken for the next start
    await h.deliver({ job: jobRequest('a', { task: 'rated', runAt: T0 }), attempt: 1, delaySeconds: 0 });
    await h.deliver(fire as JobMessage);
    await h.deliver({
      job: jobRequest('c', { task: 'rated', runAt: T0 + 2_000 }),
      attempt: 1,
      delaySeconds: 0,
    });
    const [wake] = h.queue.drain();
    await h.admin({ action: 'remove_schedule', id: 'beat' });

    // the fire's wake-up arrives: its claim takes the start, its check finds its schedule gone
    h.clock.advance((wake?.delaySeconds ?? 0) * 1000);
    await h.deliver(wake as JobMessage);
    const passedOn = h.queue.sent.map((message) => message.job.id);
    // c's wake-up comes back in the second before its start (SQS delays in whole seconds)
    const [next] = h.queue.drain();
    h.clock.advance(((next?.delaySeconds ?? 0) + 1) * 1000);
    await h.deliver(next as JobMessage);

    expect(wake?.job.id).toBe(fire?.job.id);
    expect((await h.store.getJob(fire?.job.id ?? '', h.clock.now()))?.status).toBe('cancelled');
    expect(passedOn).toEqual(['c']);
    expect(started).toEqual(['a', 'c']);
    expect(await h.store.waitingCount('rated')).toBe(0);
  });

  it('wakes the line on resume_task when the wake-up booked before the pause was spent by a job that found the task paused', async () => {
    const started: string[] = [];
    const h = adminAndWorker({
      rated: { rateLimit: RATE, handler: (_payload, { jobId }) => void started.push(jobId) },
    });
    await h.deliver({ job: jobRequest('a', { task: 'rated', runAt: T0 - 2 }), attempt: 1, delaySeconds: 0 });
    await h.deliver({ job: jobRequest('b', { task: 'rated', runAt: T0 - 1 }), attempt: 1, delaySeconds: 0 });
    const [wake] = h.queue.sent;
    await h.admin({ action: 'pause_task', task: 'rated' });
    h.clock.advance((wake?.delaySeconds ?? 0) * 1000);
    await h.deliver(h.queue.drain()[0] as JobMessage); // b finds the task paused: back in its line
    expect(await h.store.waitingCount('rated')).toBe(1);

    const resumed = await h.admin({ action: 'resume_task', task: 'rated' });

    expect(resumed.woken_jobs).toBe(1);
    expect(h.queue.sent.map((message) => message.job.id)).toEqual(['b']);
  });
});
