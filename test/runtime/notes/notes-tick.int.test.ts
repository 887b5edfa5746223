import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { compileTrigger } from '../../../lib/core/triggers';
import { runTick, type TickSummary } from '../../../lib/runtime/tick/run-tick';
import { createTestTable } from '../../support/dynamodb';
import { scheduleDefinition, T0, testRuntime } from '../support';
import { expectEveryFireOnce, HOUR, interval, MINUTE, type Sent } from './notes-harness';

describe('the tick with due notes on (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('converts schedules on their first advance, then sends their fires from notes and moves the cursors', async () => {
    // Prepare: a per-10-seconds and an hourly schedule on a real table of 4 due shards
    const table = await createTestTable('notes-tick');
    drop = () => table.drop();
    const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const runtime = testRuntime({ dueNotes: true, shards: 4 });
    const deps = { ...runtime.deps, scheduleStore: store, jobStore: store };
    runtime.clock.set(T0 - 2 * MINUTE);
    const triggers = { often: interval(10), hourly: interval(3_600) };
    for (const [id, trigger] of Object.entries(triggers)) {
      await store.addSchedule({
        schedule: scheduleDefinition(id, { trigger, coalesce: 'all' }),
        nextFireAt: compileTrigger(trigger).next(runtime.clock.now()) ?? null,
        conflictPolicy: 'exception',
        now: runtime.clock.now(),
      });
    }

    // Act: a tick a minute for twelve minutes
    const sent: Sent[] = [];
    const summaries: TickSummary[] = [];
    while (runtime.clock.now() <= T0 + 10 * MINUTE) {
      summaries.push(await runTick(deps, { lastCounterRepairAt: runtime.clock.now() }));
      for (const message of runtime.queue.drain()) sent.push({ at: runtime.clock.now(), message });
      runtime.clock.advance(MINUTE);
    }

    // Assess
    expect(summaries.every((summary) => summary.errors === 0)).toBe(true);
    for (const id of Object.keys(triggers)) {
      expect(await store.getSchedule(id)).toMatchObject({ onNotes: true, version: 1 });
    }
    const sentOf = (id: string) => sent.filter((s) => s.message.job.scheduleId === id);
    expectEveryFireOnce(sentOf('often'), triggers.often, T0 + 10 * MINUTE);
    expect(sentOf('hourly').map((s) => s.message.job.fireTime)).toEqual([T0]);
    const notes = summaries.map((summary) => summary.notes);
    expect(notes.reduce((sum, n) => sum + (n?.conversions ?? 0), 0)).toBe(2);
    expect(notes.reduce((sum, n) => sum + (n?.notesRead ?? 0), 0)).toBeGreaterThanOrEqual(5);
    const lastTick = runtime.clock.now() - MINUTE;
    for (let shard = 0; shard < 4; shard++) {
      expect(await store.readNoteCursor(shard)).toBe(bucketOf(DEFAULT_NOTE_GRID, lastTick));
    }
    // The hourly schedule's next fire is noted, to be read 14 minutes before it
    const live = await store.findLiveNote({
      scheduleId: 'hourly',
      version: 1,
      createdAt: T0 - 2 * MINUTE,
      fromBucket: bucketOf(DEFAULT_NOTE_GRID, T0 + HOUR - 14 * MINUTE),
      throughBucket: bucketOf(DEFAULT_NOTE_GRID, T0 + HOUR - 14 * MINUTE),
    });
    expect(live?.entry).toMatchObject({ nextFireAt: T0 + HOUR, runs: 1, lastFireAt: T0 });
  });
});
