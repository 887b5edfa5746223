import { describe, expect, it } from 'vitest';
import { isoUtc } from '../../../lib/core/instants';
import {
  type FailureDestination,
  type FailureNotice,
  failureNoticeBody,
} from '../../../lib/core/ports/failure-destination';
import { T0 } from '../support';
import { recordFor, workerHarness } from './harness';

/** A destination that keeps what it is sent, or fails every send. */
class RecordingDestination implements FailureDestination {
  readonly notices: FailureNotice[] = [];
  failing = false;

  async send(notice: FailureNotice): Promise<void> {
    if (this.failing) throw new Error('queue gone');
    this.notices.push(notice);
  }
}

function harnessWithDestination(maxAttempts: number) {
  const worker = workerHarness({
    broken: {
      retry: { maxAttempts },
      handler: () => {
        throw new Error('disk full');
      },
    },
    quiet: {
      retry: { maxAttempts: 1 },
      handler: () => {
        throw new Error('no destination');
      },
    },
  });
  const destination = new RecordingDestination();
  worker.deps.failureDestinations = new Map([['broken', destination]]);
  return { worker, destination };
}

describe('worker: failure destinations', () => {
  it('sends a job that failed its last attempt to its task’s destination, with the documented body', async () => {
    const { worker, destination } = harnessWithDestination(1);

    await worker.deliver([recordFor('b1', 'broken', { scheduleId: 'nightly', fireTime: T0 })]);

    expect(destination.notices.map(failureNoticeBody)).toEqual([
      {
        job_id: 'b1',
        task: 'broken',
        status: 'error',
        error: { type: 'Error', message: 'disk full' },
        attempts: 1,
        schedule_id: 'nightly',
        fire_time: isoUtc(T0),
        finished_at: isoUtc(worker.clock.now()),
      },
    ]);
  });

  it('sends nothing for an attempt that is retried, nor for a task without a destination', async () => {
    const { worker, destination } = harnessWithDestination(2);

    await worker.deliver([recordFor('b1', 'broken'), recordFor('q1', 'quiet')]);

    expect(destination.notices).toEqual([]);
    expect((await worker.store.getJob('q1', worker.clock.now()))?.status).toBe('error');
  });

  it('sends a job the worker ends as abandoned (an attempt the reaper sent beyond the policy)', async () => {
    const { worker, destination } = harnessWithDestination(2);

    await worker.deliver([recordFor('b1', 'broken', {}, 3)]);

    expect(destination.notices.map((notice) => [notice.jobId, notice.status, notice.attempts])).toEqual([
      ['b1', 'abandoned', 3],
    ]);
  });

  it('still records the job when its destination fails', async () => {
    const { worker, destination } = harnessWithDestination(1);
    destination.failing = true;

    const response = await worker.deliver([recordFor('b1', 'broken')]);

    expect(response.batchItemFailures).toEqual([]);
    expect((await worker.store.getJob('b1', worker.clock.now()))?.status).toBe('error');
  });
});
