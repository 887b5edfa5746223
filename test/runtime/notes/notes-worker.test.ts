import { describe, expect, it } from 'vitest';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { scheduleDefinition, sqsRecord, T0 } from '../support';
import { fireCountingWorker } from '../tick/fire-counting-worker';
import { fireTimes, interval, MINUTE } from './notes-harness';

/**
 * A worker and a tick over one store with notes on, and a schedule `often` on `trigger` from T0; `run`
 * ticks a minute from T0 - 2 min through `until`, delivering every message whose run time has come.
 */
async function tickAndWork(trigger: TriggerSpec) {
  const { worker, runs } = fireCountingWorker({ dueNotes: true });
  worker.clock.set(T0 - 2 * MINUTE);
  await worker.store.addSchedule({
    schedule: scheduleDefinition('often', { trigger, coalesce: 'all' }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: worker.clock.now(),
  });
  const tick = createTickHandler(() => worker.deps);
  const waiting: ReturnType<typeof worker.queue.drain> = [];
  const run = async (until: number) => {
    for (let at = T0 - 2 * MINUTE; at <= until; at += MINUTE) {
      worker.clock.set(at);
      await tick();
      waiting.push(...worker.queue.drain());
      const due = waiting.filter((message) => message.job.runAt <= at);
      waiting.splice(0, waiting.length, ...waiting.filter((message) => message.job.runAt > at));
      for (const message of due) await worker.deliver([sqsRecord(message)]);
    }
  };
  return { worker, runs, run };
}

describe('due notes with the worker: a schedule on notes is not taken for a finished one (ADR 0007)', () => {
  it('runs every fire once, each delivered as its time comes, and keeps the converted schedule', async () => {
    const often = interval(10);
    const { worker, runs, run } = await tickAndWork(often);
    const until = T0 + 15 * MINUTE;

    await run(until);

    // Assess: the schedule is still there on notes, and every fire ran once
    expect(await worker.store.getSchedule('often')).toMatchObject({ onNotes: true, version: 1 });
    const expected = fireTimes(often, T0, until);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(expected);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it('cleans up a schedule finished on notes once the job of its last fire ended', async () => {
    const ending = interval(10, T0 + 5 * MINUTE);
    const { worker, runs, run } = await tickAndWork(ending);

    await run(T0 + 10 * MINUTE);

    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(fireTimes(ending, T0, T0 + 10 * MINUTE));
    expect(await worker.store.getSchedule('often')).toBeUndefined();
    expect(await worker.store.getFinishedScheduleRemoval('often')).toMatchObject({
      lastFireAt: T0 + 5 * MINUTE,
    });
  });
});
