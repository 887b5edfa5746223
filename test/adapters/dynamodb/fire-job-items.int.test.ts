import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CapacityCounter,
  DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE,
} from '../../../lib/adapters/dynamodb/capacity';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { INDEX_NAMES } from '../../../lib/adapters/dynamodb/table-design';
import type { JobRequest } from '../../../lib/core/ports/job-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { jobRequest, MINUTE, SECOND, SUCCESS, T0 } from '../store-fixtures';

function fire(scheduleId: string, fireTime: number): JobRequest {
  return jobRequest(`${scheduleId}@${fireTime}`, {
    origin: 'schedule',
    scheduleId,
    fireTime,
    runAt: fireTime,
  });
}

describe("a schedule's fire jobs in DynamoDB (ADR 0001): under the schedule, out of jobs-by-schedule", () => {
  let table: TestTable;
  let meter: CapacityCounter;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('fire-jobs');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
    store = new DynamoDbStore({
      client: table.documentClient,
      tableName: table.tableName,
      capacityMeter: meter,
    });
  });

  const run = async (request: JobRequest) => {
    await store.claimJob({ job: request, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
    await store.finishJob({ jobId: request.id, owner: 'w', result: SUCCESS, expiresAt: T0 + MINUTE });
  };

  const writeUnits = () => {
    const total = meter.snapshot().total;
    return { all: total?.writeUnits, index: total?.indexWriteUnits };
  };

  it('costs 3 write units to claim and finish (one jobs-by-task entry), an ad-hoc job with a schedule id 4', async () => {
    await run(fire('units', T0));
    const fireUnits = writeUnits();
    meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
    store = new DynamoDbStore({
      client: table.documentClient,
      tableName: table.tableName,
      capacityMeter: meter,
    });
    await run(jobRequest('units-run-now', { scheduleId: 'units', runAt: T0 }));

    expect(fireUnits).toEqual({ all: 3, index: 1 });
    expect(writeUnits()).toEqual({ all: 4, index: 2 });
  });

  it('keeps fire jobs out of the jobs-by-schedule index and in jobs-by-task', async () => {
    await run(fire('indexed', T0));
    const entries = async (indexName: string, attribute: string, value: string) => {
      const output = await table.documentClient.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: indexName,
          KeyConditionExpression: '#a = :v',
          ExpressionAttributeNames: { '#a': attribute },
          ExpressionAttributeValues: { ':v': value },
        }),
      );
      return (output.Items ?? []).map((item) => item.pk);
    };

    expect(await entries(INDEX_NAMES.jobsBySchedule, 'scheduleId', 'indexed')).toEqual([]);
    expect(await entries(INDEX_NAMES.jobsByTask, 'task', 'send-report')).toContain('FIRES#indexed');
  });

  it('still reads and lists a fire job written under the earlier layout (JOB#<id>)', async () => {
    // A fire job as the store wrote it before fire jobs moved under their schedule
    const oldId = `legacy@${T0}`;
    await table.documentClient.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pk: `JOB#${oldId}`,
          sk: 'JOB',
          task: 'send-report',
          origin: 'schedule',
          scheduleId: 'legacy',
          fireTime: T0,
          runAt: T0,
          attempt: 1,
          status: 'success',
          createdAt: T0,
          startedAt: T0,
          finishedAt: T0 + SECOND,
        },
      }),
    );
    await run(fire('legacy', T0 + 5 * SECOND));

    const read = await store.getJob(oldId, T0);
    const listed = await store.listJobs({ scheduleId: 'legacy' }, { limit: 1 }, T0);
    const next = await store.listJobs({ scheduleId: 'legacy' }, { limit: 1, cursor: listed.cursor }, T0);

    expect(read).toMatchObject({ id: oldId, scheduleId: 'legacy', status: 'success' });
    expect(listed.items.map((job) => job.id)).toEqual([`legacy@${T0 + 5 * SECOND}`]);
    expect(next.items.map((job) => job.id)).toEqual([oldId]);
    expect(next.cursor).toBeUndefined();
  });
});
