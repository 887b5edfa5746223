import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import {
  delayedThenReplaced,
  parkedThenReplaced,
  REPLACEMENT_RUNS,
  waitingThenReplaced,
} from './replaced-job';

let table: TestTable;
let store: DynamoDbStore;
beforeAll(async () => {
  table = await createTestTable('replaced-job');
  // Four due shards: each of the scenario's 60-odd ticks leases and reads every shard
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
});
afterAll(() => table.drop());

describe('a queued job replaced while its message is in flight (DynamoDB Local)', () => {
  it('parked job sent by the tick, then replaced: the replacement runs', async () => {
    expect(await parkedThenReplaced({ jobStore: store, scheduleStore: store })).toEqual(
      REPLACEMENT_RUNS.parked,
    );
  });

  it('job sent with a delay, then replaced far ahead (parked): the replacement runs', async () => {
    expect(await delayedThenReplaced({ jobStore: store, scheduleStore: store })).toEqual(
      REPLACEMENT_RUNS.delayed,
    );
  });

  it('job waiting in its line, replaced while its own send failed: the tick sends the replacement, which runs', async () => {
    expect(await waitingThenReplaced({ jobStore: store, scheduleStore: store })).toEqual(
      REPLACEMENT_RUNS.waiting,
    );
  });
});
