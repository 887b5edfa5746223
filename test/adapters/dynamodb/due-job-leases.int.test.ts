import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable, localDynamoDbClient, type TestTable } from '../../support/dynamodb';
import { failure, jobRequest, MINUTE, SECOND, T0 } from '../store-fixtures';

const RUN_AT = T0 + 10 * SECOND;

/** A client on which every lease write of a parked job after the first `leases` is refused before it is sent. */
function clientRefusingLeasesAfter(leases: number): DynamoDBClient {
  const client = localDynamoDbClient(inject('dynamodbEndpoint'));
  let seen = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ConditionExpression?: string };
      if (context.commandName === 'UpdateItemCommand' && input.ConditionExpression?.includes('dueShard')) {
        seen += 1;
        if (seen > leases) throw Object.assign(new Error('refused'), { name: 'ServiceUnavailable' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'refuseLeases' },
  );
  return client;
}

/**
 * A tick that leased some parked jobs and then met a refusal (a throttled lease or page read) sends the
 * ones it leased: they are not left leased to nobody until the lease runs out, and the rest are the
 * next tick's.
 */
describe('leasing parked jobs when part of the call fails', () => {
  let table: TestTable;
  const clients: DynamoDBClient[] = [];
  const storeOn = (client: DynamoDBClient) => {
    clients.push(client);
    return new DynamoDbStore({ client, tableName: table.tableName, shards: 1, maxAttempts: 1 });
  };

  beforeEach(async () => {
    table = await createTestTable('due-job-leases');
    const store = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    for (const id of ['a', 'b', 'c']) {
      await store.createJob({
        job: jobRequest(id, { runAt: RUN_AT }),
        conflictPolicy: 'exception',
        now: T0,
        parkUntilDue: true,
      });
    }
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await table.drop();
  });

  it('returns the jobs it leased before a lease was refused, and leaves the rest to the next tick', async () => {
    // Prepare
    const failing = storeOn(clientRefusingLeasesAfter(2));
    const next = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));

    // Act
    const leased = await failing.acquireDueJobs('tick-1', RUN_AT, RUN_AT, 2 * MINUTE, 10);
    const leftOver = await next.acquireDueJobs('tick-2', RUN_AT, RUN_AT, 2 * MINUTE, 10);

    // Assert
    expect(leased).toHaveLength(2);
    expect(leftOver).toHaveLength(1);
    expect(new Set([...leased, ...leftOver].map((job) => job.id))).toEqual(new Set(['a', 'b', 'c']));
  });

  it('fails when it leased nothing, so that the tick reports it', async () => {
    // Prepare
    const failing = storeOn(clientRefusingLeasesAfter(0));

    // Act
    const error = await failure(failing.acquireDueJobs('tick-1', RUN_AT, RUN_AT, 2 * MINUTE, 10));

    // Assert
    expect(error).toBeInstanceOf(Error);
    const next = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    expect(await next.acquireDueJobs('tick-2', RUN_AT, RUN_AT, 2 * MINUTE, 10)).toHaveLength(3);
  });
});
