import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TASK_PREFIX, WAITING_PREFIX } from '../../lib/adapters/dynamodb/table-design';

/**
 * For the report of a wake-up stall: the entries of a task's waiting line that a waker holds now (the
 * count of free slots takes each for a job on its way), as `position held by <owner> for <ms>`. Reads
 * with its own client, so the soak's injected faults never touch it.
 */
export function heldEntriesProbe(client: DynamoDBClient, tableName: string) {
  const documents = DynamoDBDocumentClient.from(client);
  return async (task: string): Promise<string> => {
    const now = Date.now();
    const page = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wait)',
        ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${task}`, ':wait': WAITING_PREFIX },
        ConsistentRead: true,
      }),
    );
    const held = (page.Items ?? []).filter((item) => Number(item.wakeUntil ?? 0) >= now);
    const lines = held.map(
      (item) =>
        `${String(item.sk).split('#').at(-1)} held by ${String(item.wakeOwner).slice(-6)} for ${Number(item.wakeUntil) - now} ms more`,
    );
    return `${lines.join(', ') || 'nothing'} of ${page.Items?.length ?? 0} waiting`;
  };
}
