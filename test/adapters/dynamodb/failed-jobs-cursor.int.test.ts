import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { encodeCursor, jobListing } from '../../../lib/adapters/page-cursor';
import { ValidationError } from '../../../lib/core/errors';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { T0 } from '../store-fixtures';

let table: TestTable;
let store: DynamoDbStore;
beforeAll(async () => {
  table = await createTestTable('cursorrange');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});
afterAll(() => table.drop());

it('refuses a hand-made cursor of the failed-jobs listing whose finish time lies outside its range, naming cursor', async () => {
  const filter = { status: 'error' as const, finishedFrom: T0, finishedBefore: T0 + 1_000 };
  const at = (finishedAt: number) =>
    encodeCursor(jobListing(filter), { unsuccessful: 'error', finishedAt, pk: 'JOB#x', sk: 'JOB' });

  const outside = await store
    .listJobs(filter, { limit: 5, cursor: at(T0 + 5_000) }, T0)
    .catch((error) => error);
  const inside = await store.listJobs(filter, { limit: 5, cursor: at(T0 + 500) }, T0);

  expect(outside).toBeInstanceOf(ValidationError);
  expect((outside as ValidationError).issues.map((issue) => issue.path)).toEqual(['cursor']);
  expect(inside).toEqual({ items: [] });
});
