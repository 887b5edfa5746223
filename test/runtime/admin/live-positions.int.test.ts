import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { T0 } from './support/harness';
import { fromNote, HOUR, movedOn, type WireSchedule } from './support/moved-on';
import { harnessOn } from './support/on-dynamodb';

/** The admin API on DynamoDB Local with schedules moved on by their note chains (ADR 0008). */
let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('live-positions-admin');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
});

afterAll(() => table.drop());

describe('the admin API on DynamoDB with schedules moved on by their chains', () => {
  it('reads them from their live notes, and a cap set on one counts its live note’s runs', async () => {
    const h = harnessOn(store);
    await movedOn(h, ['moved-a', 'moved-b']);

    const got = await h.ok<{ schedule: WireSchedule }>({ action: 'get_schedule', id: 'moved-a' });
    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules' });
    const updated = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'moved-b',
      max_runs: 3,
    });

    expect(got.schedule).toMatchObject({ ...fromNote, finished: false });
    expect(listed.schedules.map((s) => [s.id, s.runs, s.next_fire_time])).toEqual([
      ['moved-a', 3, fromNote.next_fire_time],
      ['moved-b', 3, fromNote.next_fire_time],
    ]);
    expect(updated.schedule).toMatchObject({ runs: 3, next_fire_time: null, finished: true, version: 2 });
    expect(await store.getSchedule('moved-a')).toMatchObject({ nextFireAt: T0, runs: 0 });
    expect(await store.getSchedule('moved-b')).toMatchObject({ nextFireAt: null, runs: 3, startedRuns: 3 });
    expect(h.queue.messages.map((message) => message.job.id)).toEqual(
      expect.arrayContaining([`moved-a@${T0 + 2 * HOUR}`, `moved-b@${T0 + 2 * HOUR}`]),
    );
    expect(h.logs).toEqual([]);
  });
});
