import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from '../worker/admin-and-worker';

const MINUTE = 60 * SECOND;
let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('replaced-job');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});
afterAll(async () => {
  await table.drop();
});

function harness() {
  const runs: { payload: unknown; at: number }[] = [];
  const h = adminAndWorker(
    { report: { handler: async (payload: unknown) => void runs.push({ payload, at: h.clock.now() }) } },
    { jobStore: store, scheduleStore: store },
  );
  return { h, runs };
}

describe('a queued job replaced while its message is in flight (DynamoDB Local)', () => {
  it('parked job sent by the tick, then replaced: the replacement runs', async () => {
    const { h, runs } = harness();
    await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'p',
      payload: { v: 1 },
      run_at: new Date(T0 + 20 * MINUTE).toISOString(),
    });
    h.clock.set(T0 + 20 * MINUTE - 80 * SECOND);
    await createTickHandler(() => h.deps)();
    h.clock.set(T0 + 20 * MINUTE - 60 * SECOND);
    await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'p',
      payload: { v: 2 },
      run_at: new Date(T0 + 80 * MINUTE).toISOString(),
      conflict_policy: 'replace',
    });
    await h.deliverDue(20 * 60);
    for (let minute = 21; minute <= 82; minute++) {
      h.clock.set(T0 + minute * MINUTE);
      await createTickHandler(() => h.deps)();
      await h.deliverDue(minute * 60);
    }
    expect(runs).toEqual([{ payload: { v: 2 }, at: T0 + 80 * MINUTE }]);
  });

  it('job sent with a delay, then replaced far ahead (parked): the replacement runs', async () => {
    const { h, runs } = harness();
    await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'q',
      payload: { v: 1 },
      run_at: new Date(T0 + 5 * MINUTE).toISOString(),
    });
    await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'q',
      payload: { v: 2 },
      run_at: new Date(T0 + 60 * MINUTE).toISOString(),
      conflict_policy: 'replace',
    });
    for (let minute = 1; minute <= 62; minute++) {
      h.clock.set(T0 + minute * MINUTE);
      await createTickHandler(() => h.deps)();
      await h.deliverDue(minute * 60);
    }
    expect(runs).toEqual([{ payload: { v: 2 }, at: T0 + 60 * MINUTE }]);
  });
});
