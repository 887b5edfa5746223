import { describe, expect, it } from 'vitest';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { SECOND, T0 } from '../support';
import {
  dispatchRuntime,
  expectEveryFireOnce,
  expectSentOnceEach,
  HOUR,
  interval,
  MINUTE,
} from './dispatch-harness';

describe('schedules moved on by their note chains (ADR 0007, 0008)', () => {
  it('keeps an hourly and a per-10-seconds schedule firing, each fire sent once and ahead of its time', async () => {
    // Prepare: both added through the admin API 5 minutes before their first fire at T0
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const hourly = interval(3_600);
    const often = interval(10);
    await runtime.add('hourly', hourly);
    await runtime.add('often', often);

    // Act: a tick a minute for three hours, with the deployed configuration
    await runtime.tickEveryMinuteUntil(T0 + 3 * HOUR);

    // Assess: every fire sent once (by the admin call or a tick), none late, 50 s ahead or more once
    // the chains run on time (the hourly one's first fire was sent by its admin call, 5 minutes ahead)
    expectEveryFireOnce(runtime.sentOf('hourly'), hourly, T0 + 3 * HOUR);
    expectEveryFireOnce(runtime.sentOf('often'), often, T0 + 3 * HOUR);
    expectSentOnceEach(runtime.sent);
    const ahead = (s: (typeof runtime.sent)[number]) => (s.message.job.fireTime as number) - s.at;
    expect(Math.min(...runtime.sent.map(ahead))).toBeGreaterThanOrEqual(50 * SECOND);
    for (const id of ['hourly', 'often']) {
      expect(await runtime.store.getSchedule(id)).toMatchObject({ version: 1, paused: false });
    }
    expect(runtime.summaries.every((s) => s.errors === 0)).toBe(true);
    expect(runtime.summaries.every((s) => s.shardsLeased === 16 && s.dispatchersStarted === 8)).toBe(true);
    expect(runtime.summaries.reduce((sum, s) => sum + s.notes.cursorMoves, 0)).toBeGreaterThan(100);
    const lastHour = runtime.summaries.slice(-60);
    expect(lastHour.reduce((sum, s) => sum + s.jobsEnqueued, 0)).toBe(
      runtime.sent.filter((s) => s.at >= T0 + 2 * HOUR + MINUTE).length,
    );
  });

  it('reads each shard once through dispatchers holding its lease (ADR 0006): every fire once, every cursor moved', async () => {
    const runtime = dispatchRuntime({ dispatchers: 4 });
    runtime.clock.set(T0 - 5 * MINUTE);
    const often = interval(10);
    const ids = Array.from({ length: 12 }, (_, n) => `s-${n}`);
    for (const id of ids) await runtime.add(id, often);

    await runtime.tickEveryMinuteUntil(T0 + 30 * MINUTE);

    for (const id of ids) expectEveryFireOnce(runtime.sentOf(id), often, T0 + 30 * MINUTE);
    expectSentOnceEach(runtime.sent);
    for (let shard = 0; shard < runtime.store.dueShards; shard++) {
      expect(await runtime.store.readNoteCursor(shard)).toBe(bucketOf(DEFAULT_NOTE_GRID, T0 + 30 * MINUTE));
    }
    expect(runtime.summaries.every((s) => s.errors === 0 && s.dispatchersStarted === 4)).toBe(true);
  });
});
