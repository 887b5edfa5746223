import { describe, expect, it } from 'vitest';
import { startIntervalMs } from '../../../lib/core/model/rate-limit';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { jobRequest, sqsRecord, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import { recordFor, startRecordingWorker } from './harness';

const RATE = { max: 1, perSeconds: 10 };
const INTERVAL = startIntervalMs(RATE);

describe('a rate-limited wake-up that brings no start is passed on', () => {
  it('wakes the next waiting job when the woken one missed its start deadline', async () => {
    const { worker, started } = startRecordingWorker('rated', { rateLimit: RATE });
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

  it('wakes the next waiting job when the woken one took its start and its fire check cancelled it', async () => {
    // Prepare: a starts; a fire of a schedule removed since (f) and then c wait; f is woken for a's next start
    const { worker, started } = startRecordingWorker('rated', { rateLimit: RATE });
    const fire = jobRequest(`gone@${T0 - 2}`, {
      task: 'rated',
      origin: 'schedule',
      scheduleId: 'gone',
      fireTime: T0 - 2,
      runAt: T0 - 2,
    });
    const revision = { createdAt: T0 - 60_000, version: 1, firesFrom: T0 - 60_000 };
    await worker.deliver([recordFor('a', 'rated', { runAt: T0 - 3 })]);
    await worker.deliver([sqsRecord({ job: fire, attempt: 1, revision })]);
    await worker.deliver([recordFor('c', 'rated', { runAt: T0 - 1 })]);
    expect(worker.queue.sent.map((m) => m.job.id)).toEqual([fire.id]);

    // Act: f's wake-up arrives for the next start; its claim takes that start, its check cancels it
    const [wake] = worker.queue.sent;
    worker.clock.advance((wake?.delaySeconds ?? 0) * 1000);
    await worker.deliver(worker.queuedRecords());
    const wokenNext = worker.queue.sent.map((m) => [m.job.id, m.delaySeconds]);
    worker.clock.advance(INTERVAL);
    await worker.deliver(worker.queuedRecords());

    // Assess: c is woken, delayed, for the start after the one f spent, and starts then
    expect((await worker.store.getJob(fire.id, worker.clock.now()))?.status).toBe('cancelled');
    expect(wokenNext).toEqual([['c', Math.floor(INTERVAL / 1000)]]);
    expect(started.map(([id]) => id)).toEqual(['a', 'c']);
    expect(started[1]?.[1]).toBeLessThan(T0 + 2 * INTERVAL + 1_000);
    expect(await worker.store.waitingCount('rated')).toBe(0);
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
