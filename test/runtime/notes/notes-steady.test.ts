import { describe, expect, it } from 'vitest';
import { SECOND, T0 } from '../support';
import { expectEveryFireOnce, fireTimes, HOUR, interval, MINUTE, notesRuntime } from './notes-harness';

describe('due notes: schedules moved on by notes after their first advance (ADR 0007)', () => {
  it('keeps an hourly and a per-10-seconds schedule firing, each fire sent once and ahead of its time', async () => {
    // Prepare: both added 5 minutes before their first fire at T0
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const hourly = interval(3_600);
    const often = interval(10);
    await runtime.add('hourly', hourly);
    await runtime.add('often', often);

    // Act: a tick a minute for three hours
    await runtime.tickEveryMinuteUntil(T0 + 3 * HOUR);

    // Assess: converted by their first advance, every fire sent once, before its time
    for (const id of ['hourly', 'often']) {
      expect(await runtime.store.getSchedule(id)).toMatchObject({
        onNotes: true,
        version: 1,
      });
    }
    expectEveryFireOnce(runtime.sentOf('hourly'), hourly, T0 + 3 * HOUR);
    expectEveryFireOnce(runtime.sentOf('often'), often, T0 + 3 * HOUR);
    for (const id of ['hourly', 'often']) {
      const ids = runtime.sentOf(id).map((s) => s.message.job.id);
      expect(ids.length).toBe(new Set(ids).size);
    }
    // Never late; once on notes (after the chunk the conversion's note was clamped into), 50 s ahead or more
    const ahead = (s: (typeof runtime.sent)[number]) => (s.message.job.fireTime as number) - s.at;
    expect(Math.min(...runtime.sent.map(ahead))).toBeGreaterThanOrEqual(0);
    expect(Math.min(...runtime.sent.filter((s) => s.at > T0 + 5 * MINUTE).map(ahead))).toBeGreaterThanOrEqual(
      50 * SECOND,
    );
    const notes = runtime.summaries.map((summary) => summary.notes);
    expect(notes.every((n) => n !== undefined)).toBe(true);
    expect(notes.reduce((sum, n) => sum + (n?.conversions ?? 0), 0)).toBe(2);
    expect(notes.reduce((sum, n) => sum + (n?.cursorMoves ?? 0), 0)).toBeGreaterThan(100);
    expect(runtime.summaries.every((summary) => summary.errors === 0)).toBe(true);
    const lastHour = runtime.summaries.slice(-60);
    expect(lastHour.reduce((sum, s) => sum + s.jobsEnqueued, 0)).toBe(
      runtime.sent.filter((s) => s.at > T0 + 2 * HOUR).length,
    );
  });

  it('reads each shard once through dispatchers holding its lease (ADR 0006): every fire once, every cursor moved', async () => {
    const runtime = notesRuntime({ dispatchers: 4 });
    runtime.clock.set(T0 - 2 * MINUTE);
    const often = interval(10);
    const ids = Array.from({ length: 12 }, (_, n) => `s-${n}`);
    for (const id of ids) await runtime.add(id, often);

    await runtime.tickEveryMinuteUntil(T0 + 30 * MINUTE);

    for (const id of ids) {
      expectEveryFireOnce(runtime.sentOf(id), often, T0 + 30 * MINUTE);
      const jobIds = runtime.sentOf(id).map((s) => s.message.job.id);
      expect(jobIds.length).toBe(new Set(jobIds).size);
      expect(await runtime.store.getSchedule(id)).toMatchObject({ onNotes: true });
    }
    for (let shard = 0; shard < runtime.store.dueShards; shard++) {
      expect(await runtime.store.readNoteCursor(shard)).toBe(Math.floor((T0 + 30 * MINUTE) / 10_000));
    }
    expect(
      runtime.summaries.every((summary) => summary.errors === 0 && summary.dispatchersStarted === 4),
    ).toBe(true);
  });

  it('writes no note and moves no cursor with due notes off: schedules stay in the due index', async () => {
    const runtime = notesRuntime({ dueNotes: false });
    runtime.clock.set(T0 - 5 * MINUTE);
    const often = interval(10);
    await runtime.add('often', often);

    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    expectEveryFireOnce(runtime.sentOf('often'), often, T0 + 10 * MINUTE);
    expect(await runtime.allNotes(T0 + HOUR)).toEqual([]);
    for (let shard = 0; shard < 4; shard++) expect(await runtime.store.readNoteCursor(shard)).toBeUndefined();
    const schedule = await runtime.store.getSchedule('often');
    expect(schedule?.onNotes).toBeUndefined();
    expect(schedule?.nextFireAt).not.toBeNull();
    expect(runtime.summaries.every((summary) => summary.notes === undefined)).toBe(true);
  });

  it('goes on reading notes once they are turned off: no schedule on notes stops, none more is converted', async () => {
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    const often = interval(10);
    await runtime.add('noted', often);
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);
    expect(await runtime.store.getSchedule('noted')).toMatchObject({ onNotes: true });

    // Act: notes turned off (a deploy with SUNDIAL_DUE_NOTES off), and a schedule added after
    runtime.deps.config = { ...runtime.deps.config, dueNotes: false };
    const addedAt = runtime.clock.now();
    await runtime.add('later', often);
    await runtime.tickEveryMinuteUntil(T0 + HOUR);

    expectEveryFireOnce(runtime.sentOf('noted'), often, T0 + HOUR);
    const later = new Set(runtime.sentOf('later').map((s) => s.message.job.fireTime));
    expect([...later].filter((time) => (time as number) <= T0 + HOUR).sort()).toEqual(
      fireTimes(often, addedAt, T0 + HOUR),
    );
    expect(await runtime.store.getSchedule('noted')).toMatchObject({ onNotes: true });
    expect((await runtime.store.getSchedule('later'))?.onNotes).toBeUndefined();
    expect(runtime.summaries.every((summary) => summary.errors === 0)).toBe(true);
  });
});
