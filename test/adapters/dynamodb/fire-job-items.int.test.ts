import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CapacityMeter } from '../../../bench/support/capacity-meter';
import type { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { INDEX_NAMES } from '../../../lib/adapters/dynamodb/table-design';
import type { JobRequest } from '../../../lib/core/ports/job-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { meteredStore, writeUnitsOf } from '../../support/metered-store';
import { jobRequest, MINUTE, SUCCESS, T0 } from '../store-fixtures';

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
  let meter: CapacityMeter;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('fire-jobs');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    ({ store, meter } = meteredStore(table));
  });

  const run = async (request: JobRequest) => {
    await store.claimJob({ job: request, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
    await store.finishJob({ jobId: request.id, owner: 'w', result: SUCCESS, expiresAt: T0 + MINUTE });
  };

  const writeUnits = () => writeUnitsOf(meter);

  it('costs 3 write units to claim and finish (one jobs-by-task entry), an ad-hoc job with a schedule id 4', async () => {
    await run(fire('units', T0));
    const fireUnits = writeUnits();
    meter.reset();
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
});
