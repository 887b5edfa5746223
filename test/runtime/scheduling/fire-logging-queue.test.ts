import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/core/clock';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { JobRequest } from '../../../lib/core/ports/job-store';
import { fireLoggingQueue } from '../../../lib/runtime/scheduling/fire-logging-queue';
import { jobRequest, RecordingQueue, T0 } from '../support';

function message(job: JobRequest, attempt = 1): JobMessage {
  return { job, attempt, delaySeconds: 0 };
}

const firstFire = message(
  jobRequest(`s@${T0}`, { origin: 'schedule', scheduleId: 's', fireTime: T0, runAt: T0 }),
);
const unnotedFire = message(
  jobRequest(`t@${T0}`, { origin: 'schedule', scheduleId: 't', fireTime: T0, runAt: T0 }),
);
const retry = message(jobRequest(`s@${T0 - 5_000}`, { origin: 'schedule', scheduleId: 's' }), 2);
const adHoc = message(jobRequest('adhoc'));

/** A store that notes the fires it is given except those of schedule `t`, or fails. */
function noteStore(fail = false) {
  const calls: string[][] = [];
  return {
    calls,
    async logFiresToSend(jobs: readonly JobRequest[]) {
      calls.push(jobs.map((job) => job.id));
      if (fail) throw new Error('DynamoDB is unavailable');
      return new Set(jobs.filter((job) => job.scheduleId !== 't').map((job) => job.id));
    },
  };
}

describe('fireLoggingQueue', () => {
  it('notes the first fires of a send in one call before sending, and marks those noted', async () => {
    const inner = new RecordingQueue();
    const store = noteStore();
    const queue = fireLoggingQueue(inner, store, new ManualClock(T0));

    const result = await queue.send([firstFire, unnotedFire, retry, adHoc]);

    expect(store.calls).toEqual([[firstFire.job.id, unnotedFire.job.id]]);
    expect(result).toEqual({ failed: [] });
    expect(inner.sent.map((sent) => [sent.job.id, sent.taskLogged ?? false])).toEqual([
      [firstFire.job.id, true],
      [unnotedFire.job.id, false],
      [retry.job.id, false],
      [adHoc.job.id, false],
    ]);
  });

  it('sends nothing when the fires cannot be noted (the caller resumes at its first unsent fire)', async () => {
    const inner = new RecordingQueue();
    const queue = fireLoggingQueue(inner, noteStore(true), new ManualClock(T0));

    await expect(queue.send([firstFire, adHoc])).rejects.toThrow('DynamoDB is unavailable');
    expect(inner.sent).toEqual([]);
  });

  it('sends a batch without first fires without noting anything', async () => {
    const inner = new RecordingQueue();
    const store = noteStore(true);
    const queue = fireLoggingQueue(inner, store, new ManualClock(T0));

    await queue.send([retry, adHoc]);

    expect(store.calls).toEqual([]);
    expect(inner.sent).toHaveLength(2);
  });
});
