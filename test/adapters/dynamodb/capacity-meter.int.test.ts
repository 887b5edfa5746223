import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CapacityCounter,
  DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE,
} from '../../../lib/adapters/dynamodb/capacity';
import { DEFAULT_RETRY_POLICY, defaultSleep } from '../../../lib/adapters/dynamodb/retry';
import { StoreContext } from '../../../lib/adapters/dynamodb/store-context';
import { createTestTable, type TestTable } from '../../support/dynamodb';

/** About 3 KB: three write units per write of it. */
const THREE_KB = 'x'.repeat(3_000);

describe('the capacity meter counts what AWS bills, on DynamoDB Local', () => {
  let table: TestTable;
  let meter: CapacityCounter;
  let context: StoreContext;

  beforeAll(async () => {
    table = await createTestTable('capacity');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
    context = new StoreContext(
      table.documentClient,
      table.tableName,
      1,
      DEFAULT_RETRY_POLICY,
      defaultSleep,
      meter,
    );
  });

  it('charges a write by the size of the item: 3 units for a 3 KB item', async () => {
    await context.put('put', { Item: { pk: 'size', sk: 'A', body: THREE_KB } });

    expect(meter.snapshot().put).toMatchObject({ writeUnits: 3, failedWrites: 0 });
  });

  it('charges a write refused on its condition by the size of the item it was refused on', async () => {
    await context.put('seed', { Item: { pk: 'refused', sk: 'A', body: THREE_KB, version: 1 } });

    const refused = context.update('advance', {
      Key: { pk: 'refused', sk: 'A' },
      UpdateExpression: 'SET version = :next',
      ConditionExpression: 'version = :seen',
      ExpressionAttributeValues: { ':seen': 0, ':next': 2 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });

    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(meter.snapshot().advance).toMatchObject({ writeUnits: 3, failedWrites: 1, failedWriteUnits: 3 });
  });

  it('charges at least one unit for a refused write of an item that does not exist', async () => {
    const refused = context.update('missing', {
      Key: { pk: 'absent', sk: 'A' },
      UpdateExpression: 'SET version = :next',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':next': 1 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });

    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(meter.snapshot().missing).toMatchObject({ writeUnits: 1, failedWriteUnits: 1 });
  });

  it('charges a transaction 2 units per KB of each item, where DynamoDB Local reports 4', async () => {
    await context.put('seed', { Item: { pk: 'txn', sk: 'big', body: THREE_KB } });

    await context.transact('pair', {
      TransactItems: [
        { Put: { TableName: table.tableName, Item: { pk: 'txn', sk: 'small' } } },
        {
          Update: {
            TableName: table.tableName,
            Key: { pk: 'txn', sk: 'big' },
            UpdateExpression: 'SET touched = :yes',
            ExpressionAttributeValues: { ':yes': true },
          },
        },
      ],
    });

    expect(meter.snapshot().pair).toMatchObject({ writeUnits: 2 * 1 + 2 * 3, failedWrites: 0 });
  });

  it('counts a ConditionCheck in a transaction, which DynamoDB Local reports as free', async () => {
    await context.put('seed', { Item: { pk: 'check', sk: 'A' } });

    await context.transact('checked', {
      TransactItems: [
        { Put: { TableName: table.tableName, Item: { pk: 'check', sk: 'B' } } },
        {
          ConditionCheck: {
            TableName: table.tableName,
            Key: { pk: 'check', sk: 'A' },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });

    expect(meter.snapshot().checked).toMatchObject({ writeUnits: 4 });
  });

  it('charges a transaction cancelled on a condition 2 units per KB of each item', async () => {
    await context.put('seed', { Item: { pk: 'cancel', sk: 'big', body: THREE_KB } });

    const cancelled = context.transact('cancelled', {
      TransactItems: [
        { Put: { TableName: table.tableName, Item: { pk: 'cancel', sk: 'new' } } },
        {
          Update: {
            TableName: table.tableName,
            Key: { pk: 'cancel', sk: 'big' },
            UpdateExpression: 'SET n = :one',
            ConditionExpression: 'attribute_not_exists(pk)',
            ExpressionAttributeValues: { ':one': 1 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });

    await expect(cancelled).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(meter.snapshot().cancelled).toMatchObject({ failedWrites: 1, failedWriteUnits: 2 * 1 + 2 * 3 });
  });
});
