import {
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { CapacityMeter, DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE } from '../../bench/support/capacity-meter';
import { createTestTable, localDynamoDbClient, type TestTable } from '../support/dynamodb';

/** About 3 KB: three write units per write of it. */
const THREE_KB = 'x'.repeat(3_000);

describe('the benchmarks’ capacity meter counts what AWS bills, on DynamoDB Local', () => {
  let table: TestTable;
  let meter: CapacityMeter;
  let documents: DynamoDBDocumentClient;

  beforeAll(async () => {
    table = await createTestTable('capacity');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    meter = new CapacityMeter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
    documents = DynamoDBDocumentClient.from(meter.attach(localDynamoDbClient(inject('dynamodbEndpoint'))));
  });
  const TableName = () => table.tableName;
  const put = (Item: Record<string, unknown>) =>
    documents.send(new PutCommand({ TableName: TableName(), Item }));

  it('charges a write by the size of the item, to the kind of item it writes', async () => {
    await put({ pk: 'FIRES#s', sk: 'A', body: THREE_KB });
    await put({ pk: 'DUENOTES#0#1', sk: 'w#00000' });
    await put({ pk: 'TASK#t', sk: 'COUNTER' });

    const { job, schedule, other, total } = meter.snapshot();
    expect([job.writeUnits, schedule.writeUnits, other.writeUnits]).toEqual([3, 1, 1]);
    expect(total).toMatchObject({ calls: 3, writeUnits: 5, failedWrites: 0 });
  });

  it('charges a write refused on its condition by the size of the item it was refused on', async () => {
    await put({ pk: 'SCHEDULE#refused', sk: 'SCHEDULE', body: THREE_KB, version: 1 });
    meter.reset();

    const refused = documents.send(
      new UpdateCommand({
        TableName: TableName(),
        Key: { pk: 'SCHEDULE#refused', sk: 'SCHEDULE' },
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': 0, ':next': 2 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );

    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(meter.snapshot().schedule).toMatchObject({ writeUnits: 3, failedWrites: 1, failedWriteUnits: 3 });
  });

  it('charges at least one unit for a refused write of an item that does not exist', async () => {
    const refused = documents.send(
      new UpdateCommand({
        TableName: TableName(),
        Key: { pk: 'JOB#absent', sk: 'JOB' },
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':next': 1 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );

    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(meter.snapshot().job).toMatchObject({ writeUnits: 1, failedWriteUnits: 1 });
  });

  it('charges a transaction 2 units per KB of each item (Local reports 4), and a ConditionCheck 2', async () => {
    await put({ pk: 'FIRES#txn', sk: 'big', body: THREE_KB });
    await put({ pk: 'FIRES#txn', sk: 'checked' });
    meter.reset();

    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TableName(), Item: { pk: 'FIRES#txn', sk: 'small' } } },
          {
            Update: {
              TableName: TableName(),
              Key: { pk: 'FIRES#txn', sk: 'big' },
              UpdateExpression: 'SET touched = :yes',
              ExpressionAttributeValues: { ':yes': true },
            },
          },
          {
            ConditionCheck: {
              TableName: TableName(),
              Key: { pk: 'FIRES#txn', sk: 'checked' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ],
      }),
    );

    expect(meter.snapshot().job).toMatchObject({ writeUnits: 2 * 1 + 2 * 3 + 2, failedWrites: 0 });
  });

  it('charges a transaction cancelled on a condition 2 units per KB of each item, and the removal of a schedule to its end', async () => {
    await put({ pk: 'SCHEDULE#done', sk: 'SCHEDULE', body: THREE_KB });
    meter.reset();

    const cancelled = documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: TableName(),
              Key: { pk: 'SCHEDULE#done', sk: 'SCHEDULE' },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Put: { TableName: TableName(), Item: { pk: 'REMOVED#done', sk: 'REMOVED' } } },
        ],
      }),
    );

    await expect(cancelled).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(meter.snapshot().scheduleEnd).toMatchObject({ failedWrites: 1, failedWriteUnits: 2 * 3 + 2 * 1 });
  });
});
