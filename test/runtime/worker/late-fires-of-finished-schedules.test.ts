import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
/** Fires at T0 and T0 + 10 s, then ends. */
const twoFires = { type: 'interval', seconds: 10, start_at: iso(T0), end_at: iso(T0 + 15 * SECOND) } as const;

/**
 * A schedule with two fires whose last fire is delivered and ends first, while the earlier fire's
 * message is still in the queue (a throttled store, a crashed worker, a waiting line); then its closing
 * note is read, which removes it (ADR 0011).
 */
async function lastFireEndsFirst() {
  const fires: number[] = [];
  const p = adminAndWorker({
    beat: { handler: (_payload, { fireTime }) => void fires.push((fireTime?.getTime() ?? 0) - T0) },
  });
  await p.admin({ action: 'add_schedule', id: 'ending', task: 'beat', trigger: twoFires });
  const messages = p.queue.drain().sort((a, b) => a.job.runAt - b.job.runAt);
  const [earlier, last] = messages;
  if (messages.length !== 2 || !earlier || !last) throw new Error('expected two fires');
  await p.deliver(last);
  await p.readClosingNotes(10);
  const job = async (message: JobMessage) =>
    (await p.admin({ action: 'get_job', job_id: message.job.id })).job as Record<string, unknown>;
  const scheduleAfterLast = await p.api({ action: 'get_schedule', id: 'ending' });
  return { p, fires, earlier, job, scheduleAfterLast };
}

describe('late fires of a finished schedule', () => {
  it('runs an earlier fire delivered after the schedule was cleaned up, once', async () => {
    const { p, fires, earlier, job, scheduleAfterLast } = await lastFireEndsFirst();

    await p.deliver(earlier);
    await p.deliver(earlier);

    expect(scheduleAfterLast).toMatchObject({ ok: false, error: { code: 'schedule_not_found' } });
    expect(fires).toEqual([10 * SECOND, 0]);
    expect(await job(earlier)).toMatchObject({ status: 'success', attempt: 1 });
    expect(await p.api({ action: 'get_schedule', id: 'ending' })).toMatchObject({ ok: false });
    expect((await p.admin({ action: 'list_schedules' })).schedules).toEqual([]);
  });

  it('runs an earlier fire sent before an update, as the update defines it, after the cleanup', async () => {
    const seen: unknown[] = [];
    const p = adminAndWorker({ beat: { handler: (payload) => void seen.push(payload) } });
    await p.admin({ action: 'add_schedule', id: 'ending', task: 'beat', trigger: twoFires, payload: 'v1' });
    const sentUnderV1 = p.queue.drain().sort((a, b) => a.job.runAt - b.job.runAt);
    const [earlier, last] = sentUnderV1;
    if (!earlier || !last) throw new Error('expected two fires');
    await p.admin({ action: 'update_schedule', id: 'ending', payload: 'v2' });
    p.queue.drain();

    // The last fire is checked first: it is replaced under v2, runs, and the schedule is cleaned up.
    await p.deliver(last);
    await p.readClosingNotes(10);
    expect(await p.api({ action: 'get_schedule', id: 'ending' })).toMatchObject({ ok: false });
    await p.deliver(earlier);
    await p.deliverDue(20);

    expect(seen).toEqual(['v2', 'v2']);
    expect((await p.admin({ action: 'get_job', job_id: earlier.job.id })).job).toMatchObject({
      status: 'success',
    });
  });

  it('retries a run claimed before an update whose worker vanished, after the cleanup', async () => {
    const seen: unknown[] = [];
    const p = adminAndWorker({ beat: { handler: (payload) => void seen.push(payload) } });
    await p.admin({ action: 'add_schedule', id: 'ending', task: 'beat', trigger: twoFires, payload: 'v1' });
    const [earlier, last] = p.queue.drain().sort((a, b) => a.job.runAt - b.job.runAt);
    if (!earlier || !last) throw new Error('expected two fires');
    p.clock.set(earlier.job.runAt);
    await p.claimAndVanish(earlier);
    p.clock.set(earlier.job.runAt + SECOND);
    await p.admin({ action: 'update_schedule', id: 'ending', payload: 'v2' });
    p.queue.drain();

    await p.deliver(last);
    await p.readClosingNotes(10);
    expect(await p.api({ action: 'get_schedule', id: 'ending' })).toMatchObject({ ok: false });
    await p.deliver(earlier); // its claim's lease ended long ago

    expect(seen).toEqual(['v2', 'v1']);
    expect((await p.admin({ action: 'get_job', job_id: earlier.job.id })).job).toMatchObject({
      status: 'success',
      attempt: 2,
    });
  });

  it('still cancels an earlier fire when the owner removed the schedule', async () => {
    const fires: number[] = [];
    const p = adminAndWorker({
      beat: { handler: (_payload, { fireTime }) => void fires.push((fireTime?.getTime() ?? 0) - T0) },
    });
    await p.admin({ action: 'add_schedule', id: 'ending', task: 'beat', trigger: twoFires });
    const [earlier] = p.queue.drain().sort((a, b) => a.job.runAt - b.job.runAt);
    if (!earlier) throw new Error('no fire');

    await p.admin({ action: 'remove_schedule', id: 'ending' });
    await p.deliver(earlier);

    expect(fires).toEqual([]);
    expect((await p.admin({ action: 'get_job', job_id: earlier.job.id })).job).toMatchObject({
      status: 'cancelled',
      result: { error: { type: 'ScheduleRemoved' } },
    });
  });

  it('judges an old fire against a schedule added again with the same id', async () => {
    const { p, fires, earlier, job } = await lastFireEndsFirst();
    await p.admin({
      action: 'add_schedule',
      id: 'ending',
      task: 'beat',
      trigger: { type: 'date', run_at: iso(T0 + 600 * SECOND) },
    });

    await p.deliver(earlier);

    expect(fires).toEqual([10 * SECOND]);
    expect(await job(earlier)).toMatchObject({
      status: 'cancelled',
      result: { error: { type: 'ScheduleChanged' } },
    });
  });

  it('cancels an old fire once the owner removed a schedule added again with the same id', async () => {
    const { p, fires, earlier, job } = await lastFireEndsFirst();
    await p.admin({
      action: 'add_schedule',
      id: 'ending',
      task: 'beat',
      trigger: { type: 'date', run_at: iso(T0 + 600 * SECOND) },
    });
    await p.admin({ action: 'remove_schedule', id: 'ending' });

    await p.deliver(earlier);

    expect(fires).toEqual([10 * SECOND]);
    expect(await job(earlier)).toMatchObject({
      status: 'cancelled',
      result: { error: { type: 'ScheduleRemoved' } },
    });
  });
});
