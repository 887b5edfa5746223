import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CapacityMeter } from '../../../bench/support/capacity-meter';
import type { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { FIRE_LOG_RETENTION_MS } from '../../../lib/adapters/dynamodb/fire-log';
import { INDEX_NAMES } from '../../../lib/adapters/dynamodb/table-design';
import type { ClaimJobInput, JobRequest } from '../../../lib/core/ports/job-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { meteredStore, writeUnitsOf } from '../../support/metered-store';
import { DAY, fireRequest, jobRequest, MINUTE, retryFirstAttempt, SUCCESS, T0 } from '../store-fixtures';

const fire = fireRequest;

describe("a task's fire log in DynamoDB (ADR 0001): fires listed by task without an index entry each", () => {
  let table: TestTable;
  let meter: CapacityMeter;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('fire-log');
  });
  afterAll(() => table.drop());
  const freshMeter = () => {
    ({ store, meter } = meteredStore(table));
  };
  beforeEach(freshMeter);

  const claim = (request: JobRequest, extra: Partial<ClaimJobInput> = {}) =>
    store.claimJob({ job: request, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE, ...extra });
  const writeUnits = () => writeUnitsOf(meter);
  const taskIndexEntries = async (task: string) => {
    const output = await table.documentClient.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: INDEX_NAMES.jobsByTask,
        KeyConditionExpression: '#task = :task',
        ExpressionAttributeNames: { '#task': 'task' },
        ExpressionAttributeValues: { ':task': task },
      }),
    );
    return (output.Items ?? []).map((item) => `${item.pk}/${item.sk}`);
  };

  it('notes a round of 100 fires in one item of 2 write units, and only schedule fires', async () => {
    const fires = Array.from({ length: 100 }, (_, index) =>
      fire(`round-${String(index).padStart(4, '0')}`, T0 + index * 100),
    );
    const adHoc = jobRequest('round-adhoc', { task: 'send-report' });

    const logged = await store.logFiresToSend([...fires, adHoc], T0);

    expect([...logged].sort()).toEqual(fires.map((request) => request.id).sort());
    expect(writeUnits()).toEqual({ all: 2, index: 0 });
  });

  it('claims and finishes a noted fire in 2 write units, none of them an index write', async () => {
    const noted = fire('cheap', T0);
    await store.logFiresToSend([noted], T0);
    freshMeter();

    await claim(noted, { taskLogged: true });
    await store.finishJob({ jobId: noted.id, owner: 'w', result: SUCCESS, expiresAt: T0 + 7 * DAY });

    expect(writeUnits()).toEqual({ all: 2, index: 0 });
    expect(await taskIndexEntries('send-report')).not.toContain(
      `FIRES#cheap/JOB#${String(T0).padStart(16, '0')}`,
    );
    expect(
      (await store.listJobs({ task: 'send-report' }, { limit: 50 }, T0)).items.map((job) => job.id),
    ).toContain(noted.id);
  });

  it('keeps a retried fire out of the index, at its fire time', async () => {
    const retried = fire('retried', T0);
    await store.logFiresToSend([retried], T0);
    await claim(retried, { taskLogged: true });
    await retryFirstAttempt(store, retried.id, T0 + MINUTE);
    await claim({ ...retried, runAt: T0 + MINUTE }, { attempt: 2, owner: 'w2' });

    expect(await taskIndexEntries('send-report')).not.toContainEqual(
      expect.stringContaining('FIRES#retried/'),
    );
    expect(await store.getJob(retried.id, T0)).toMatchObject({ status: 'running', runAt: T0 + MINUTE });
  });

  it('indexes a fire whose result, or run, outlives its log entry, and lists it once', async () => {
    const longResult = fire('long-result', T0);
    const lateRun = fire('late-run', T0);
    await store.logFiresToSend([longResult, lateRun], T0);
    await claim(longResult, { taskLogged: true });
    await store.finishJob({
      jobId: longResult.id,
      owner: 'w',
      result: SUCCESS,
      expiresAt: T0 + FIRE_LOG_RETENTION_MS + 2 * MINUTE,
    });
    const lateClaim = T0 + FIRE_LOG_RETENTION_MS;
    await claim(lateRun, { taskLogged: true, now: lateClaim, leaseUntil: lateClaim + 2 * MINUTE });

    const indexed = await taskIndexEntries('send-report');
    const listed = await store.listJobs({ task: 'send-report' }, { limit: 50 }, T0);

    expect(indexed).toContainEqual(expect.stringContaining('FIRES#long-result/'));
    expect(indexed).toContainEqual(expect.stringContaining('FIRES#late-run/'));
    expect(listed.items.filter((job) => job.id === longResult.id)).toHaveLength(1);
    expect(listed.items.filter((job) => job.id === lateRun.id)).toHaveLength(1);
  });

  it('indexes a fire delivered without a note (a sender that does not note)', async () => {
    await claim(fire('unnoted', T0));

    expect(await taskIndexEntries('send-report')).toContainEqual(expect.stringContaining('FIRES#unnoted/'));
  });
});
