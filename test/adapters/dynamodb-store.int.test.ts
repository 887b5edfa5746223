import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { taskCounterKey } from '../../lib/adapters/dynamodb/table-design';
import { createTestTable, deleteExpiredItems } from '../support/dynamodb';
import { describeStoreContract } from './store-contract';

describeStoreContract('DynamoDB (Local)', async () => {
  const table = await createTestTable('store');
  const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
  return {
    store,
    async setRunningCount(task, running) {
      await table.documentClient.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: taskCounterKey(task),
          UpdateExpression: 'SET running = :running, kind = :kind',
          ExpressionAttributeValues: { ':running': running, ':kind': 'counter' },
        }),
      );
    },
    expireRecords: (now) => deleteExpiredItems(table, now),
    teardown: () => table.drop(),
  };
});
