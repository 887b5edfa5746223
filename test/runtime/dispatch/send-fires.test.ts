import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/core/clock';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { JobRequest } from '../../../lib/core/ports/job-store';
import { type FireSending, noteAndSendFires, SendTimes } from '../../../lib/runtime/dispatch/send-fires';
import { clockSleep, jobRequest, RecordingQueue, T0 } from '../support';

function message(job: JobRequest, attempt = 1): JobMessage {
  return { job, attempt, delaySeconds: 0 };
}

const firstFire = message(
  jobRequest(`s@${T0}`, { origin: 'schedule', scheduleId: 's', fireTime: T0, runAt: T0 }),
);
const unloggedFire = message(
  jobRequest(`t@${T0}`, { origin: 'schedule', scheduleId: 't', fireTime: T0, runAt: T0 }),
);
const retry = message(jobRequest(`s@${T0 - 5_000}`, { origin: 'schedule', scheduleId: 's' }), 2);
const adHoc = message(jobRequest('adhoc'));

/** A store that logs the fires it is given except those of schedule `t`, or fails. */
function fireLog(fail = false) {
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

/** Sending at once (no phases), as an admin call's own dispatch does. */
function sending(queue: RecordingQueue, jobStore: FireSending['jobStore']): FireSending {
  const clock = new ManualClock(T0);
  return {
    queue,
    jobStore,
    clock,
    sleep: clockSleep(clock),
    phasesUntil: 0,
    toleranceMs: 0,
    sendTimes: new SendTimes(),
  };
}

describe('noteAndSendFires', () => {
  it("logs a dispatch's first fires in their tasks' logs in one call before sending, and marks those logged", async () => {
    const queue = new RecordingQueue();
    const log = fireLog();

    const failed = await noteAndSendFires(sending(queue, log), [firstFire, unloggedFire, retry, adHoc]);

    expect(log.calls).toEqual([[firstFire.job.id, unloggedFire.job.id]]);
    expect(failed).toEqual(new Set());
    expect(queue.sent.map((sent) => [sent.job.id, sent.taskLogged ?? false])).toEqual([
      [firstFire.job.id, true],
      [unloggedFire.job.id, false],
      [retry.job.id, false],
      [adHoc.job.id, false],
    ]);
  });

  it('sends nothing when the fires cannot be logged, and reports every message as not sent', async () => {
    const queue = new RecordingQueue();

    const failed = await noteAndSendFires(sending(queue, fireLog(true)), [firstFire, adHoc]);

    expect(failed).toEqual(new Set([firstFire.job.id, adHoc.job.id]));
    expect(queue.sent).toEqual([]);
  });

  it('reports the messages the queue refused, and all of them when the queue throws', async () => {
    const refusing = new RecordingQueue();
    refusing.failWhen = (sent) => sent.job.id === unloggedFire.job.id;
    const throwing = new RecordingQueue();
    throwing.send = async () => {
      throw new Error('connect ECONNREFUSED');
    };

    const refused = await noteAndSendFires(sending(refusing, fireLog()), [firstFire, unloggedFire]);
    const thrown = await noteAndSendFires(sending(throwing, fireLog()), [firstFire, unloggedFire]);

    expect(refused).toEqual(new Set([unloggedFire.job.id]));
    expect(refusing.sent.map((sent) => sent.job.id)).toEqual([firstFire.job.id]);
    expect(thrown).toEqual(new Set([firstFire.job.id, unloggedFire.job.id]));
  });
});
