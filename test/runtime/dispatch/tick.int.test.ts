import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { createTestTable } from '../../support/dynamodb';
import { T0 } from '../support';
import {
  dispatchRuntime,
  expectEveryFireOnce,
  expectSentOnceEach,
  fireTimes,
  HOUR,
  interval,
  MINUTE,
  ranOnceEach,
} from './dispatch-harness';

describe('the tick moving schedules on by their chains (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('sends every fire of chains started by the admin API once, moves the cursors, and answers the live note', async () => {
    // Prepare: a per-10-seconds and an hourly schedule added through the admin API, on a real table of 4 shards
    const table = await createTestTable('chains-tick');
    drop = () => table.drop();
    const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const runtime = dispatchRuntime({ shards: 4, dispatchers: 4 }, { scheduleStore: store, jobStore: store });
    runtime.clock.set(T0 - 5 * MINUTE);
    const triggers = { often: interval(10), hourly: interval(3_600) };
    for (const [id, trigger] of Object.entries(triggers)) await runtime.add(id, trigger);

    // Act: a tick a minute for a quarter of an hour, a worker running each fire at its run time
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE, (at) => runtime.deliverDue(at + MINUTE - 1));

    // Assess
    expect(runtime.summaries.every((summary) => summary.errors === 0)).toBe(true);
    expectEveryFireOnce(runtime.sentOf('often'), triggers.often, T0 + 10 * MINUTE);
    expect(runtime.sentOf('hourly').map((s) => s.message.job.fireTime)).toEqual([T0]);
    expectSentOnceEach(runtime.sent);
    expect(ranOnceEach(runtime.runs, 'often')).toEqual({
      times: fireTimes(triggers.often, T0, T0 + 11 * MINUTE - 1),
      once: true,
    });
    expect(runtime.summaries.reduce((sum, s) => sum + s.notes.notesRead, 0)).toBeGreaterThanOrEqual(5);
    const lastTick = T0 + 10 * MINUTE;
    for (let shard = 0; shard < 4; shard++) {
      expect(await store.readNoteCursor(shard)).toBe(bucketOf(DEFAULT_NOTE_GRID, lastTick));
    }
    // The admin API reads the hourly schedule's position from its live note, read 14 minutes before its fire
    const read = await runtime.admin({ action: 'get_schedule', id: 'hourly' });
    expect(read.schedule).toMatchObject({
      next_fire_time: new Date(T0 + HOUR).toISOString().replace('.000', ''),
      last_fire_time: new Date(T0).toISOString().replace('.000', ''),
      runs: 1,
    });
  });
});
