import { afterEach, describe, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable } from '../../support/dynamodb';
import { overlappingMissedScenario, overlappingOnTimeScenario, STUCK_AT } from './overlapping-ticks';

describe('a dispatcher stuck past its shard lease, overlapped by the next tick (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  async function storeOf(name: string) {
    const table = await createTestTable(name);
    drop = () => table.drop();
    return new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
  }

  it.each(STUCK_AT)(
    'both read one note on time, stuck %s: every fire sent, each runs once, one chain after',
    async (stuckAt) => {
      await overlappingOnTimeScenario(await storeOf('overlap-on-time'), stuckAt, {
        shards: 4,
        dispatchers: 4,
      });
    },
  );

  it.each(STUCK_AT)(
    'both read one note late, coalesced to different latest fires, stuck %s: they run what the two in sequence run',
    async (stuckAt) => {
      await overlappingMissedScenario(await storeOf('overlap-missed'), stuckAt, {
        shards: 4,
        dispatchers: 4,
      });
    },
  );
});
