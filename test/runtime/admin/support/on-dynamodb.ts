import type { DynamoDbStore } from '../../../../lib/adapters/dynamodb/dynamodb-store';
import { createAdminApi } from '../../../../lib/runtime/admin';
import { createHarness } from './harness';

/** The test harness (queue, clock, logs, tasks) with the admin API on a DynamoDB store. */
export function harnessOn(store: DynamoDbStore) {
  const h = createHarness();
  const admin = createAdminApi({ ...h.deps, scheduleStore: store, jobStore: store });
  return {
    ...h,
    store,
    admin,
    async ok<Result>(request: Record<string, unknown>): Promise<Result> {
      const response = await admin(request);
      if (!response.ok) throw new Error(`expected success: ${JSON.stringify(response.error)}`);
      return response.result as Result;
    },
  };
}
