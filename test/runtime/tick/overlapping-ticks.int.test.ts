import { afterEach, describe, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable } from '../../support/dynamodb';
import { overlappingMissedTicksScenario, overlappingTicksScenario } from './overlapping-ticks';

describe('overlapping lease-less ticks (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('both read and send, one moves the schedule on, every fire is sent and later runs once', async () => {
    const table = await createTestTable('overlapping-ticks');
    drop = () => table.drop();
    await overlappingTicksScenario(
      new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 }),
    );
  });

  it.each(['A', 'B'] as const)(
    'over missed fires, coalesced to different latest fires, run what the ticks in sequence run (%s moves the schedule on)',
    async (first) => {
      const table = await createTestTable(`overlapping-missed-${first}`);
      drop = () => table.drop();
      await overlappingMissedTicksScenario(
        new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 }),
        first,
      );
    },
  );
});
