import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createAdminApi } from '../../../lib/runtime/admin';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { checkFuzzedRequests, finishSeededJob, fuzzedRequest, seedThroughApi } from './support/fuzz';
import { createHarness, recordingStore } from './support/harness';

/**
 * The fuzzer of never-throws.property.test.ts against DynamoDB Local: what the in-memory store takes in
 * its stride (a `__proto__` key, a foreign cursor, a number beyond 2^53) is where DynamoDB refuses.
 * One table for every run; seeding replaces what earlier runs changed.
 */
let table: TestTable;
let dynamo: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('fuzz');
  dynamo = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, maxAttempts: 2 });
});

afterAll(() => table.drop());

/** How many targets were seeded: each run's ids are its own, as a request id is in AWS. */
let seeded = 0;

async function seededTarget() {
  // The table outlives the run, and a due note's writer is named after its request's id: ids that
  // start again at 1 in every run make one run's notes meet another's (they "exist already").
  const run = ++seeded;
  let sequence = 0;
  const h = createHarness({ newId: () => `run-${run}-id-${++sequence}` });
  const { store, writes } = recordingStore(dynamo);
  const admin = createAdminApi({ ...h.deps, scheduleStore: store, jobStore: store });
  const cursors = await seedThroughApi(admin);
  await finishSeededJob(dynamo, h.clock.now());
  writes.length = 0;
  h.queue.messages.length = 0;
  return { admin, writes, messages: h.queue.messages, logs: h.logs, cursors };
}

describe('the admin API on DynamoDB never answers internal_error', () => {
  it('answers fuzzed requests of every action soundly', async () => {
    const succeeded = new Set<unknown>();
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzedRequest, { minLength: 1, maxLength: 4 }), async (requests) => {
        await checkFuzzedRequests(await seededTarget(), requests, succeeded);
      }),
      { numRuns: 60 },
    );
    expect(succeeded.size).toBeGreaterThan(8);
    // 60 runs of real DynamoDB Local calls: about 30 s on a quick machine, twice that on a slow one.
  }, 180_000);
});
