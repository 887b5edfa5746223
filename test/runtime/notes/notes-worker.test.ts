import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { scheduleDefinition, sqsRecord, T0 } from '../support';
import { fireCountingWorker } from '../tick/fire-counting-worker';
import { fireTimes, interval, MINUTE } from './notes-harness';

describe('due notes with the worker: a schedule on notes is not taken for a finished one (ADR 0007)', () => {
  it('runs every fire once, each delivered as its time comes, and keeps the converted schedule', async () => {
    // Prepare: a schedule every 10 s from T0 with notes on; each minute the tick sends, and every
    // message whose run time has come is delivered
    const { worker, runs } = fireCountingWorker({ dueNotes: true });
    const often = interval(10);
    worker.clock.set(T0 - 2 * MINUTE);
    await worker.store.addSchedule({
      schedule: scheduleDefinition('often', { trigger: often, coalesce: 'all' }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: worker.clock.now(),
    });
    const tick = createTickHandler(() => worker.deps);
    const waiting: ReturnType<typeof worker.queue.drain> = [];

    // Act
    const until = T0 + 15 * MINUTE;
    for (let at = T0 - 2 * MINUTE; at <= until; at += MINUTE) {
      worker.clock.set(at);
      await tick();
      waiting.push(...worker.queue.drain());
      const due = waiting.filter((message) => message.job.runAt <= at);
      waiting.splice(0, waiting.length, ...waiting.filter((message) => message.job.runAt > at));
      for (const message of due) await worker.deliver([sqsRecord(message)]);
    }

    // Assess: the schedule is still there on notes, and every fire ran once
    expect(await worker.store.getSchedule('often')).toMatchObject({ onNotes: true, version: 1 });
    const expected = fireTimes(often, T0, until);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(expected);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });
});
