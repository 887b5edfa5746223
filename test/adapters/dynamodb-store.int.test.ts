import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import {
  dueNotesPartition,
  TTL_ATTRIBUTE,
  taskCounterKey,
  ttlSeconds,
} from '../../lib/adapters/dynamodb/table-design';
import { noteItemExpiresAt } from '../../lib/core/ports/due-note-items';
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
    async putRawNoteItem(shard, bucket, name, entries) {
      await table.documentClient.send(
        new PutCommand({
          TableName: table.tableName,
          Item: {
            pk: dueNotesPartition(shard, bucket),
            sk: name,
            entries,
            [TTL_ATTRIBUTE]: ttlSeconds(noteItemExpiresAt(bucket)),
          },
        }),
      );
    },
    teardown: () => table.drop(),
  };
});
