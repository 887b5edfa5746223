import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../lib/core/json';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;
const fireId = (seconds: number) => `beat@${T0 + seconds * SECOND}`;

/**
 * The worker and the admin API on one in-memory store, with a task `beat` that publishes every event
 * and records its runs; each fire's `job.cancelled` events are counted by job.
 */
async function platform() {
  const runs: string[] = [];
  const beat = {
    events: 'all' as const,
    handler: (payload: JsonValue, { fireTime, attempt }: { fireTime: Date | null; attempt: number }) => {
      runs.push(`${((fireTime?.getTime() ?? 0) - T0) / SECOND}:${attempt}:v${(payload as { v: number }).v}`);
    },
  };
  const p = adminAndWorker({ beat });
  await p.admin({
    action: 'add_schedule',
    id: 'beat',
    task: 'beat',
    trigger: every10s,
    payload: { v: 1 },
    coalesce: 'all',
  });
  await p.deliverDue(15);
  return {
    ...p,
    runs,
    /** How many `job.cancelled` events each job got. */
    cancelledEvents(): Record<string, number> {
      const counts: Record<string, number> = {};
      for (const event of p.publisher.events) {
        if (event.type === 'job.cancelled') counts[event.jobId] = (counts[event.jobId] ?? 0) + 1;
      }
      return counts;
    },
    async statusOf(seconds: number) {
      const job = await p.store.getJob(fireId(seconds), p.clock.now());
      return `${job?.status}:${job?.result?.error?.type}`;
    },
  };
}

describe('worker: job.cancelled of a fire whose schedule changed, delivered more than once', () => {
  it('publishes it once per job when SQS delivers each message twice after an update; each replacement runs once', async () => {
    // Prepare: fires every 10 s, +0 and +10 ran; +20 … +90 were sent as v1
    const p = await platform();

    // Act
    await p.admin({ action: 'update_schedule', id: 'beat', payload: { v: 2 } });
    await p.deliverDue(90, 2);

    // Assess
    const stale = [20, 30, 40, 50, 60, 70, 80, 90];
    expect(p.cancelledEvents()).toEqual(Object.fromEntries(stale.map((seconds) => [fireId(seconds), 1])));
    expect(p.runs).toEqual(['0:1:v1', '10:1:v1', ...stale.map((seconds) => `${seconds}:1:v2`)]);
  });

  it('publishes it once per job for fires a pause cancelled twice; resumed with replay_missed, each runs once', async () => {
    // Prepare
    const p = await platform();
    await p.admin({ action: 'pause_schedule', id: 'beat' });
    await p.deliverDue(35, 2);

    // Act: the resume sends the fires the pause cancelled again (new fires of the same jobs: they run)
    await p.admin({ action: 'resume_schedule', id: 'beat', replay_missed: true });
    await p.deliverDue(60, 2);

    // Assess: the fires sent before the pause that come up after the resume are cancelled (and replaced) too
    const events = p.cancelledEvents();
    expect(Object.keys(events)).toEqual(expect.arrayContaining([fireId(20), fireId(30)]));
    expect(Object.values(events).every((count) => count === 1)).toBe(true);
    expect(p.runs).toEqual(['0:1:v1', '10:1:v1', '20:1:v1', '30:1:v1', '40:1:v1', '50:1:v1', '60:1:v1']);
    expect(p.publisher.events.filter((event) => event.type === 'job.started')).toHaveLength(p.runs.length);
  });

  it('publishes it once when two deliveries of a paused fire run at the same time; nothing runs', async () => {
    // Prepare
    const p = await platform();
    const message = p.takeMessage(20);
    await p.admin({ action: 'pause_schedule', id: 'beat' });

    // Act: both at once; a delivery that found the other's run comes back (SQS redelivers it)
    const results = await Promise.all([p.deliver(message), p.deliver(message)]);
    for (const { batchItemFailures } of results) {
      for (const _failure of batchItemFailures) await p.deliver(message);
    }
    await p.deliverDue(30, 2);

    // Assess
    expect(p.cancelledEvents()).toEqual({ [fireId(20)]: 1, [fireId(30)]: 1 });
    expect(await p.statusOf(20)).toBe('cancelled:SchedulePaused');
    expect(p.runs).toEqual(['0:1:v1', '10:1:v1']);
  });

  it('publishes it once when the replacement could not be sent; the redelivery sends it, and it runs once', async () => {
    // Prepare: the cancellation is written, then sending the replacement fails (as a crash there would)
    const p = await platform();
    const message = p.takeMessage(20);
    await p.admin({ action: 'update_schedule', id: 'beat', payload: { v: 2 } });
    p.queue.failWhen = (sent) => sent.job.id === fireId(20);
    const failed = await p.deliver(message);
    p.queue.failWhen = () => false;
    const afterFailedSend = await p.statusOf(20);

    // Act: the kept message comes back
    await p.deliver(message);
    const replacements = p.queue.sent.filter((sent) => sent.job.id === fireId(20));
    await p.deliverDue(20);

    // Assess
    expect(failed.batchItemFailures).toHaveLength(1);
    expect(afterFailedSend).toBe('cancelled:ScheduleChanged');
    expect(replacements).toMatchObject([{ job: { payload: { v: 2 } }, attempt: 1 }]);
    expect(p.cancelledEvents()).toEqual({ [fireId(20)]: 1 });
    expect(p.runs).toEqual(['0:1:v1', '10:1:v1', '20:1:v2']);
  });

  it("publishes nothing more for a fire a user's cancel_job made final after the check; its replacement does not run", async () => {
    // Prepare: the check cancels the stale +20 fire and sends its replacement; then the user cancels the job
    const p = await platform();
    const message = p.takeMessage(20);
    await p.admin({ action: 'update_schedule', id: 'beat', payload: { v: 2 } });
    await p.deliver(message);
    await p.admin({ action: 'cancel_job', job_id: fireId(20) });

    // Act: the replacement and a duplicate of the stale message come
    await p.deliverDue(20);
    await p.deliver(message);

    // Assess
    expect(p.cancelledEvents()).toEqual({ [fireId(20)]: 1 });
    expect(p.runs).toEqual(['0:1:v1', '10:1:v1']);
    expect(await p.statusOf(20)).toBe('cancelled:undefined');
  });
});
