import { describe, expect, it } from 'vitest';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { type DispatchRuntime, dispatchRuntime, MINUTE } from '../dispatch/dispatch-harness';
import { SECOND, scheduleDefinition, T0 } from '../support';

function hourlyFrom(start: number): TriggerSpec {
  return { type: 'interval', hours: 1, start_at: new Date(start).toISOString() };
}

const TWENTY = Array.from({ length: 20 }, (_, index) => `schedule-${index}`).sort();

/**
 * 20 hourly schedules first firing at T0, added through the admin API 20 minutes before (their first
 * notes are read 14 minutes before T0), and `poison`, due a second before them, whose note is read then
 * too. A `poisonTrigger` that does not compile is written as a store would hold it (no admin call takes it).
 */
async function twentySchedulesAndPoison(runtime: DispatchRuntime, poisonTrigger?: TriggerSpec) {
  runtime.clock.set(T0 - 20 * MINUTE);
  for (const id of TWENTY) await runtime.add(id, hourlyFrom(T0));
  if (poisonTrigger) {
    const now = runtime.clock.now();
    const entry = { scheduleId: 'poison', chain: 'p1', nextFireAt: T0 - SECOND, runs: 0, lastFireAt: null };
    await runtime.store.addSchedule({
      schedule: scheduleDefinition('poison', { trigger: poisonTrigger }),
      position: { nextFireAt: T0 - SECOND, lastFireAt: null, runs: 0 },
      start: {
        chain: 'p1',
        note: { bucket: bucketOf(DEFAULT_NOTE_GRID, T0 - 14 * MINUTE), entry },
        writer: 'test.p1.0',
        now,
      },
      conflictPolicy: 'exception',
      now,
    });
  } else {
    await runtime.add('poison', hourlyFrom(T0 - SECOND));
  }
  runtime.clock.set(T0 - 14 * MINUTE);
}

function scheduleIdsSent(runtime: DispatchRuntime): string[] {
  return [...new Set(runtime.sent.map((s) => s.message.job.scheduleId ?? ''))].sort();
}

describe('tick: one failing schedule does not hold back the others', () => {
  it('sends every other due schedule in the same tick when one schedule cannot be planned, and retries that one alone', async () => {
    // Prepare: the poison schedule's stored trigger does not compile
    const runtime = dispatchRuntime();
    await twentySchedulesAndPoison(runtime, { type: 'cron', expression: 'not a cron' } as TriggerSpec);

    // Act
    const summary = await runtime.tick();
    runtime.clock.set(T0 - 13 * MINUTE);
    const next = await runtime.tick();

    // Assess: the others sent; the poison note written again a few buckets on, and read again alone
    expect(scheduleIdsSent(runtime)).toEqual(TWENTY);
    expect(summary).toMatchObject({ schedulesProcessed: 20, jobsEnqueued: 20, errors: 0 });
    expect(summary.notes).toMatchObject({ notesRetried: 1, bucketsHeld: 0 });
    expect(next).toMatchObject({ schedulesProcessed: 0, jobsEnqueued: 0 });
    expect(next.notes).toMatchObject({ notesRead: 1, notesRetried: 1 });
    expect(runtime.logLines).toContainEqual(
      expect.objectContaining({
        message: 'due note could not be planned; the next tick reads it again',
        scheduleId: 'poison',
      }),
    );
  });

  it('sends every other due schedule in the same tick when the queue rejects one schedule’s messages, and sends that one once the queue takes it', async () => {
    // Prepare: the queue refuses every message of the poison schedule, for one tick
    const runtime = dispatchRuntime();
    await twentySchedulesAndPoison(runtime);
    let poisonAttempts = 0;
    runtime.queue.failWhen = (message) => {
      if (message.job.scheduleId !== 'poison') return false;
      poisonAttempts += 1;
      return true;
    };

    // Act
    const summary = await runtime.tick();
    runtime.queue.failWhen = () => false;
    runtime.clock.set(T0 - 13 * MINUTE);
    const next = await runtime.tick();

    // Assess: the others are sent; the poison schedule was tried once, then sent by the next tick
    expect(summary).toMatchObject({ jobsEnqueued: 20, sendFailures: 1 });
    expect(summary.notes).toMatchObject({ notesRetried: 1, bucketsHeld: 0 });
    expect(poisonAttempts).toBe(1);
    expect(next).toMatchObject({ jobsEnqueued: 1, sendFailures: 0 });
    expect(scheduleIdsSent(runtime)).toEqual([...TWENTY, 'poison'].sort());
  });

  it('loses nothing when the queue fails as a whole: every note is written again and sent once the queue is back', async () => {
    // Prepare: the queue refuses everything for three ticks
    const runtime = dispatchRuntime();
    await twentySchedulesAndPoison(runtime);
    runtime.queue.failWhen = () => true;

    // Act
    await runtime.tickEveryMinuteUntil(T0 - 12 * MINUTE);
    runtime.queue.failWhen = () => false;
    await runtime.tickEveryMinuteUntil(T0 - 8 * MINUTE);

    // Assess: each schedule's first fire sent once, by the first tick after the queue came back
    expect(runtime.summaries.slice(0, 3).every((s) => s.jobsEnqueued === 0 && s.sendFailures === 21)).toBe(
      true,
    );
    expect(runtime.summaries.slice(0, 3).every((s) => s.notes.bucketsHeld === 0)).toBe(true);
    expect(runtime.sent.map((s) => s.message.job.id).sort()).toEqual(
      [...TWENTY.map((id) => `${id}@${T0}`), `poison@${T0 - SECOND}`].sort(),
    );
  });
});
