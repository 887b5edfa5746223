import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { removedScheduleKey } from '../../../lib/adapters/dynamodb/table-design';
import { MAX_DESCRIPTION_LENGTH as DESCRIPTION_LENGTH } from '../../../lib/core/admin-contract/overrides-and-metadata';
import type { JsonValue } from '../../../lib/core/json';
import { LIMITS } from '../../../lib/core/limits';
import { METADATA_LIMITS } from '../../../lib/core/model/metadata';
import type { ScheduleRevision } from '../../../lib/core/model/schedule-revision';
import type { JobRequest } from '../../../lib/core/ports/job-store';
import { payloadProblem, STORABLE_MAX_DEPTH } from '../../../lib/core/storable-json';
import { sqsRecord } from '../../runtime/support';
import { workerHarness } from '../../runtime/worker/harness';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { addActive, definition, jobRequest, MINUTE, startingAt, T0 } from '../store-fixtures';

const LAST = T0 + 5_000;

function fireAt(fireTime: number): JobRequest {
  return jobRequest(`done@${fireTime}`, {
    origin: 'schedule',
    scheduleId: 'done',
    fireTime,
    runAt: fireTime,
  });
}

describe('the removal record of a finished schedule changed since it was added, in DynamoDB (ADR 0004)', () => {
  let table: TestTable;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('removal-records');
    store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    await addActive(store, 'done', { nextFireAt: T0 });
    await store.finishSchedule({ id: 'done', chain: 'c1', lastFireAt: LAST, runs: 2 });
    await store.updateSchedule({
      id: 'done',
      changes: { tags: ['changed'] },
      now: T0 + 1,
      expectedVersion: 1,
    });
    await store.removeFinishedSchedule('done', LAST, 2, T0 + MINUTE);
  });
  afterAll(() => table.drop());

  const record = async () =>
    (
      await table.documentClient.send(
        new GetCommand({ TableName: table.tableName, Key: removedScheduleKey('done') }),
      )
    ).Item ?? {};

  it('nests the removed schedule without the attributes the indexes key on', async () => {
    const item = await record();

    expect(item.removed).toMatchObject({ task: 'send-report', lastFireAt: LAST, version: 2 });
    expect(item.removed).not.toHaveProperty('kind');
    expect(item).not.toHaveProperty('kind');
  });

  it('keeps a schedule of the largest size the admin API accepts', async () => {
    const payload = { rows: Array.from({ length: 1_000 }, (_, n) => `${n}`.padEnd(128, 'x')) };
    const metadata = Object.fromEntries(
      Array.from({ length: METADATA_LIMITS.keys }, (_, n) => [
        `${n}`.padEnd(METADATA_LIMITS.keyLength, 'k'),
        'é'.repeat(METADATA_LIMITS.valueLength),
      ]),
    );
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeGreaterThan(LIMITS.payloadBytes - 2_000);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(LIMITS.payloadBytes);
    await store.addSchedule({
      schedule: definition('large', { payload, metadata, description: 'd'.repeat(DESCRIPTION_LENGTH) }),
      position: startingAt(null),
      conflictPolicy: 'exception',
      now: T0,
    });

    await store.updateSchedule({
      id: 'large',
      changes: { tags: ['changed'] },
      now: T0 + 1,
      expectedVersion: 1,
    });
    const removed = await store.removeFinishedSchedule('large', null, 2, T0 + MINUTE);

    expect(removed).toMatchObject({ id: 'large', payload, metadata });
    expect((await store.getFinishedScheduleRemoval('large'))?.schedule).toEqual(removed);
  });

  it('keeps a schedule whose payload nests as deep as the admin API allows', async () => {
    const nested = (levels: number): JsonValue => (levels === 0 ? 'leaf' : { k: nested(levels - 1) });
    const deepest = nested(STORABLE_MAX_DEPTH);
    expect(payloadProblem(deepest)).toBeUndefined();
    expect(payloadProblem(nested(STORABLE_MAX_DEPTH + 1))).toBeDefined();
    await store.addSchedule({
      schedule: definition('deep', { payload: deepest }),
      position: startingAt(null),
      conflictPolicy: 'exception',
      now: T0,
    });

    await store.updateSchedule({
      id: 'deep',
      changes: { tags: ['changed'] },
      now: T0 + 1,
      expectedVersion: 1,
    });
    expect(await store.removeFinishedSchedule('deep', null, 2, T0 + MINUTE)).toMatchObject({
      payload: deepest,
    });
    expect((await store.getFinishedScheduleRemoval('deep'))?.schedule?.payload).toEqual(deepest);
  });

  it('judges by revision alone a record written before it kept the schedule', async () => {
    await table.documentClient.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: removedScheduleKey('done'),
        UpdateExpression: 'REMOVE removed',
      }),
    );
    const ran: string[] = [];
    const worker = workerHarness(
      { 'send-report': { handler: (_payload, { jobId }) => void ran.push(jobId) } },
      {},
      { scheduleStore: store },
    );
    const fire = (fireTime: number, revision: ScheduleRevision) =>
      sqsRecord({ job: fireAt(fireTime), attempt: 1, revision });
    // A fire's message names the firesFrom of its revision; the record's revision has none
    const revision2 = { createdAt: T0, version: 2, firesFrom: T0 };

    // Act: fires of the removed schedule's last revision (within and after its last fire), and of an earlier one
    await worker.deliver([
      fire(T0, revision2),
      fire(LAST, revision2),
      fire(LAST + 5_000, revision2),
      fire(T0 + 1_000, { createdAt: T0, version: 1, firesFrom: T0 }),
    ]);

    // Assess: the fires of that revision up to its last fire ran; the others were cancelled
    const statusOf = async (fireTime: number) =>
      (await worker.store.getJob(fireAt(fireTime).id, worker.clock.now()))?.status;
    expect(await store.getFinishedScheduleRemoval('done')).not.toHaveProperty('schedule');
    expect(ran.sort()).toEqual([fireAt(LAST).id, fireAt(T0).id].sort());
    expect(await statusOf(LAST + 5_000)).toBe('cancelled');
    expect(await statusOf(T0 + 1_000)).toBe('cancelled');
  });
});
