import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createAdminApi } from '../../../lib/runtime/admin';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { createHarness } from './support/harness';
import { fromNote, HOUR, notedSchedule, type WireSchedule } from './support/noted-schedules';

/** The admin API on DynamoDB Local with schedules on due notes (ADR 0007): `onNotes` derived from the item. */
let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('noted-admin');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
});

afterAll(() => table.drop());

function dynamoHarness() {
  const h = createHarness();
  const admin = createAdminApi({ ...h.deps, scheduleStore: store, jobStore: store });
  return {
    ...h,
    store,
    async ok<Result>(request: Record<string, unknown>): Promise<Result> {
      const response = await admin(request);
      if (!response.ok) throw new Error(`expected success: ${JSON.stringify(response.error)}`);
      return response.result as Result;
    },
  };
}

describe('the admin API on DynamoDB with schedules on due notes', () => {
  it('reads them from their live notes, and an update carries the note onto the item, back in the due index', async () => {
    const h = dynamoHarness();
    await notedSchedule(h, 'noted-a');
    await notedSchedule(h, 'noted-b');

    const got = await h.ok<{ schedule: WireSchedule }>({ action: 'get_schedule', id: 'noted-a' });
    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules' });
    const updated = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'noted-b',
      max_runs: 2,
    });

    expect(got.schedule).toMatchObject({ ...fromNote, finished: false });
    expect(listed.schedules.map((s) => [s.id, s.runs])).toEqual([
      ['noted-a', 2],
      ['noted-b', 2],
    ]);
    expect(updated.schedule).toMatchObject({ runs: 2, next_fire_time: null, finished: true, version: 2 });
    expect(await store.getSchedule('noted-a')).toMatchObject({ onNotes: true, runs: 1 });
    expect((await store.getSchedule('noted-b'))?.onNotes).toBeUndefined();
    const due = await store.readDueSchedules({
      now: h.clock.now(),
      dueBefore: h.clock.now() + HOUR,
      limit: 10,
    });
    expect(due).toEqual([]);
    expect(h.logs).toEqual([]);
  });
});
