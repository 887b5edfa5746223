import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../lib/core/clock';
import { scheduleJobId } from '../../../lib/core/model/job-id';
import { DEDUPE_RECORD_RETENTION_MS } from '../../../lib/core/ports/job-store';
import { removeFinishedAfterLastFire } from '../../../lib/runtime/dispatch/finished-cleanup';
import { SECOND, scheduleDefinition, sqsRecord, T0 } from '../support';
import { dispatchRuntime, MINUTE, once } from './dispatch-harness';

const LAST = T0 + 5 * MINUTE;

/** The notes of `scheduleId` that close it (ADR 0011): standing one ms after its last fire. */
async function closingNotesOf(runtime: ReturnType<typeof dispatchRuntime>, scheduleId: string, now: number) {
  const notes = await runtime.allNotes(now);
  return notes.filter((n) => n.entry.scheduleId === scheduleId && n.entry.nextFireAt === LAST + 1);
}

describe('closing notes: a finished schedule removed off the fire path (ADR 0011)', () => {
  it('removes schedules that end together after their last fires, spread over the buckets of a chunk', async () => {
    // Prepare: 36 one-off schedules, all firing at LAST
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * MINUTE);
    const ids = Array.from({ length: 36 }, (_, n) => `ending-${n}`);
    for (const id of ids) await runtime.add(id, once(LAST));

    // Act: a tick every 10 s, each fire run at its time
    const removedAt = new Map<number, number>();
    for (let at = T0; at <= LAST + 5 * MINUTE; at += 10 * SECOND) {
      await runtime.deliverDue(at);
      const summary = await runtime.tick();
      if (summary.schedulesRemoved > 0) removedAt.set(at - LAST, summary.schedulesRemoved);
    }

    // Assess: each ran once; none was removed within a minute of the last fire, and the removals came
    // over many ticks, not at once
    expect([...(runtime.runs.get(LAST)?.map((run) => run.scheduleId) ?? [])].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await runtime.store.getSchedule(id)).toBeUndefined();
    expect([...removedAt.values()].reduce((sum, n) => sum + n, 0)).toBe(ids.length);
    expect(Math.min(...removedAt.keys())).toBeGreaterThanOrEqual(MINUTE);
    expect(Math.max(...removedAt.keys())).toBeLessThan(MINUTE + 2 * MINUTE);
    expect(removedAt.size).toBeGreaterThanOrEqual(6);
    const removedEvents = runtime.publisher.events.filter((event) => event.type === 'schedule.removed');
    expect(removedEvents).toHaveLength(ids.length);
    expect(removedEvents.every((event) => 'reason' in event && event.reason === 'finished')).toBe(true);
  });

  it('is written again, later each time, while the last job has not ended, and removes it once it has', async () => {
    // Prepare: the last fire's message is held back (a throttled delivery, a paused task)
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * MINUTE);
    await runtime.add('held', once(LAST));
    await runtime.tickEveryMinuteUntil(LAST - MINUTE);
    const held = runtime.queue.drain();

    // Act
    await runtime.tickEveryMinuteUntil(LAST + 40 * MINUTE);
    const whileHeld = await runtime.store.getSchedule('held');
    const readsWhileHeld = (await closingNotesOf(runtime, 'held', runtime.clock.now())).map((n) => n.bucket);
    for (const message of held) await runtime.deliver([sqsRecord(message)]);
    await runtime.tickEveryMinuteUntil(LAST + 60 * MINUTE);

    // Assess: still finished while its job waited; its closing note came back ever later (at most 15
    // minutes apart); then the job ran and the next read removed the schedule
    expect(held.map((message) => message.job.fireTime)).toEqual([LAST]);
    expect(whileHeld).toMatchObject({ nextFireAt: null, lastFireAt: LAST });
    const gaps = readsWhileHeld.slice(1).map((bucket, n) => (bucket - (readsWhileHeld[n] as number)) * 10);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    expect(gaps.every((gap, n) => n === 0 || gap >= (gaps[n - 1] as number))).toBe(true);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(15 * 60 + 10);
    expect(runtime.runs.get(LAST)).toHaveLength(1);
    expect(await runtime.store.getSchedule('held')).toBeUndefined();
  });

  it('removes nothing once its schedule is kept, paused or changed, and is not written again', async () => {
    for (const change of [
      { action: 'update_schedule', keep_finished: true },
      { action: 'pause_schedule' },
    ] as const) {
      const runtime = dispatchRuntime();
      runtime.clock.set(T0 - 20 * MINUTE);
      await runtime.add('changed', once(LAST));
      await runtime.tickEveryMinuteUntil(LAST);
      await runtime.deliverDue(LAST);
      await runtime.admin({ id: 'changed', ...change });

      await runtime.tickEveryMinuteUntil(LAST + 20 * MINUTE);

      expect(await runtime.store.getSchedule('changed')).toMatchObject({ nextFireAt: null });
      expect(await closingNotesOf(runtime, 'changed', runtime.clock.now())).toHaveLength(1);
    }
  });
});

describe('the removal rule a closing note applies', () => {
  async function finishedOneOff() {
    const store = new MemoryStore();
    const clock = new ManualClock(LAST + MINUTE);
    await store.addSchedule({
      schedule: scheduleDefinition('gone', { trigger: once(LAST) }),
      position: { nextFireAt: null, lastFireAt: LAST, runs: 1 },
      conflictPolicy: 'exception',
      now: T0,
    });
    return { store, clock, deps: { scheduleStore: store, jobStore: store, clock } };
  }

  it('waits for a last fire with no job record until no copy of its message can still come', async () => {
    const { store, clock, deps } = await finishedOneOff();

    const early = await removeFinishedAfterLastFire(deps, 'gone', null);
    clock.set(LAST + DEDUPE_RECORD_RETENTION_MS + SECOND);
    const late = await removeFinishedAfterLastFire(deps, 'gone', null);

    expect(early).toBeUndefined();
    expect(late).toMatchObject({ id: 'gone' });
    expect(await store.getSchedule('gone')).toBeUndefined();
    expect(await store.getJobRecord(scheduleJobId('gone', LAST))).toBeUndefined();
  });
});
