import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every = (seconds: number) => ({ type: 'interval', seconds, start_at: iso(T0) }) as const;

/**
 * After a new trigger, a fire time both triggers have is in the queue twice: the old message (sent
 * under the old revision) and the schedule's own new one, with the same job id. The old one is
 * cancelled without a replacement (the schedule dispatched the fire again itself); the new one runs it.
 */
async function bothMessagesOf(fireSeconds: number) {
  const runs: number[] = [];
  const p = adminAndWorker({
    beat: { handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND) },
  });
  p.clock.set(T0 - SECOND);
  await p.admin({ action: 'add_schedule', id: 's', task: 'beat', trigger: every(10) });
  p.clock.set(T0 + 2 * SECOND);
  await p.admin({ action: 'update_schedule', id: 's', trigger: every(5) });
  const queued = p.queue.drain();
  const of = (version: number): JobMessage => {
    const message = queued.find(
      (candidate) =>
        candidate.job.fireTime === T0 + fireSeconds * SECOND && candidate.revision?.version === version,
    );
    if (!message) throw new Error(`no message of version ${version}`);
    return message;
  };
  return { p, runs, old: of(1), current: of(2) };
}

describe('a fire time sent under the old and the new revision', () => {
  it('runs once when the old message comes first: cancelled, then reclaimed by the new one', async () => {
    const { p, runs, old, current } = await bothMessagesOf(20);

    await p.deliver(old);
    const afterOld = await p.deps.jobStore.getJob(old.job.id, p.clock.now());
    await p.deliver(current);

    expect(afterOld).toMatchObject({ status: 'cancelled', result: { error: { type: 'ScheduleChanged' } } });
    expect(p.queue.sent).toEqual([]);
    expect(runs).toEqual([20]);
    expect(await p.deps.jobStore.getJob(old.job.id, p.clock.now())).toMatchObject({ status: 'success' });
  });

  it('comes back within a second while the other message’s claim is fresh, after its lease once it is not', async () => {
    // Prepare: the old message was claimed at the fire time, and its worker is checking the schedule
    const { p, runs, old, current } = await bothMessagesOf(20);
    p.clock.set(T0 + 20 * SECOND);
    await p.claimAndVanish(old);

    // Act
    await p.deliver(current);
    const soon = p.queue.visibilityChanges.at(-1);
    p.clock.advance(3 * SECOND);
    await p.deliver(current);
    const afterLease = p.queue.visibilityChanges.at(-1);

    // Assess
    expect(soon?.seconds).toBe(1);
    expect(afterLease?.seconds).toBeGreaterThan(20);
    expect(runs).toEqual([]);
  });
});
