import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { planDispatch } from '../../../lib/runtime/scheduling/dispatch';
import { dispatchDepsOf } from '../../../lib/runtime/scheduling/dispatch-deps';
import type { TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { SECOND, scheduleDefinition, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;

/**
 * Fires of a schedule on due notes (ADR 0007): its item keeps the fire times and runs of its conversion
 * (stale), and the worker must not read them as a schedule finished, or as an advance still pending.
 */
function platform() {
  const fires: number[] = [];
  const attempts = new Map<string, number>();
  // biome-ignore lint/suspicious/noExplicitAny: the test tasks take any payload.
  const tasks: Record<string, TaskOptions<any, any>> = {
    flaky: {
      retry: { maxAttempts: 2, backoffSeconds: 1, maxBackoffSeconds: 1 },
      handler: (_payload, { jobId, fireTime }) => {
        attempts.set(jobId, (attempts.get(jobId) ?? 0) + 1);
        if (attempts.get(jobId) === 1) throw new Error('first attempt fails');
        fires.push((fireTime?.getTime() ?? 0) - T0);
      },
    },
  };
  return { ...adminAndWorker(tasks), fires };
}

/** Adds `id` (every 10 s from T0 + 10 s), plans its first fires as a tick would, and converts it to notes. */
async function convertedWithFires(p: ReturnType<typeof platform>, id: string): Promise<JobMessage[]> {
  await p.store.addSchedule({
    schedule: scheduleDefinition(id, { task: 'flaky', trigger: every10s }),
    nextFireAt: T0 + 10 * SECOND,
    conflictPolicy: 'exception',
    now: T0,
  });
  const [read] = await p.store.readDueSchedules({ now: T0, dueBefore: T0 + 90 * SECOND, limit: 10 });
  if (!read) throw new Error('not read');
  const planned = planDispatch(dispatchDepsOf(p.deps), read);
  const last = planned.messages.at(-1)?.job.fireTime ?? null;
  const converted = await p.store.convertScheduleToNotes({
    id,
    seenVersion: 1,
    seenCreatedAt: T0,
    seenNextFireAt: T0 + 10 * SECOND,
    runs: planned.messages.length,
    lastFireAt: last,
    now: T0,
  });
  if (!converted) throw new Error('not converted');
  return planned.messages;
}

describe('the worker and a schedule on due notes (ADR 0007)', () => {
  it('runs its fires, and a retried one ends without waiting for an advance its item will never get', async () => {
    const p = platform();
    const [first, second] = await convertedWithFires(p, 'noted');
    if (!first || !second) throw new Error('no fires planned');

    await p.deliver(first);
    const [retry] = p.queue.drain();
    if (!retry) throw new Error('no retry sent');
    const retried = await p.deliver(retry);
    const next = await p.deliver(second);

    expect(retry.attempt).toBe(2);
    // The item's next fire (its conversion's) is behind the fire: not an advance still to come.
    expect(retried.batchItemFailures).toEqual([]);
    expect(p.queue.visibilityChanges).toEqual([]);
    expect(next.batchItemFailures).toEqual([]);
    expect(p.fires).toEqual([10_000]);
    expect(await p.store.getSchedule('noted')).toMatchObject({ onNotes: true });
  });
});
