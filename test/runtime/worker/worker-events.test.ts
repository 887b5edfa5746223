import { describe, expect, it } from 'vitest';
import { eventSubject } from '../../../lib/core/ports/event-publisher';
import type { EventsPolicy } from '../../../lib/runtime/tasks/define-task';
import { recordFor, workerHarness } from './harness';

function tasksWithEvents(events: EventsPolicy) {
  return {
    ok: { events, handler: () => 'done' },
    bad: {
      events,
      retry: { maxAttempts: 1 },
      handler: () => {
        throw new Error('nope');
      },
    },
  };
}

async function publishedTypes(events: EventsPolicy) {
  const worker = workerHarness(tasksWithEvents(events));
  await worker.deliver([recordFor('ok-1', 'ok'), recordFor('bad-1', 'bad')]);
  return {
    worker,
    types: worker.publisher.events.map((event) => `${eventSubject(event)}:${event.type}`).sort(),
  };
}

describe('worker: job events', () => {
  it("publishes nothing for events: 'none'", async () => {
    const { types, worker } = await publishedTypes('none');
    expect(types).toEqual([]);
    expect(worker.publisher.calls).toBe(0);
  });

  it("publishes only failures for events: 'failures'", async () => {
    const { types } = await publishedTypes('failures');
    expect(types).toEqual(['bad-1:job.failed']);
  });

  it("publishes start and end of every job for events: 'all', in one batch per invocation", async () => {
    // Act
    const { types, worker } = await publishedTypes('all');

    // Assess
    expect(types).toEqual([
      'bad-1:job.failed',
      'bad-1:job.started',
      'ok-1:job.started',
      'ok-1:job.succeeded',
    ]);
    expect(worker.publisher.calls).toBe(1);
    const succeeded = worker.publisher.events.find((event) => event.type === 'job.succeeded');
    expect(succeeded).toMatchObject({
      task: 'ok',
      attempt: 1,
      result: { outcome: 'success', returnValue: 'done' },
    });
  });

  it('publishes job.retrying for a failed attempt that will be retried', async () => {
    // Prepare
    const worker = workerHarness({
      flaky: {
        events: 'all',
        retry: { maxAttempts: 2 },
        handler: () => {
          throw new Error('again');
        },
      },
    });

    // Act
    await worker.deliver([recordFor('job-1', 'flaky')]);

    // Assess
    expect(worker.publisher.events.map((event) => event.type)).toEqual(['job.started', 'job.retrying']);
  });

  it('still records the job when publishing its events fails, and logs the failure', async () => {
    // Prepare
    const worker = workerHarness(tasksWithEvents('all'));
    worker.publisher.failing = true;

    // Act
    const response = await worker.deliver([recordFor('ok-1', 'ok')]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect((await worker.store.getJob('ok-1', worker.clock.now()))?.status).toBe('success');
    expect(worker.logLines).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'publishing job events failed' }),
    );
  });

  it('writes worker metrics as CloudWatch EMF', async () => {
    // Act
    const { worker } = await publishedTypes('none');

    // Assess
    const [document] = worker.metricLines;
    expect(document).toMatchObject({ Service: 'worker', JobsSucceeded: 1, JobsFailed: 1 });
    expect(document?._aws).toMatchObject({
      CloudWatchMetrics: [{ Namespace: 'Sundial', Dimensions: [['Service']] }],
    });
  });
});
