import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TASK_PREFIX, WAITING_PREFIX, WOKEN_PREFIX } from '../../lib/adapters/dynamodb/table-design';

/**
 * For the report of a free-slot stall: a task's woken entries (ADR 0009: `WOKEN#` items, each a job
 * whose message is on its way, holding the slot it was handed or not) and how many jobs wait, as
 * `<job> woken <ms> ago (slot), … ; <n> waiting`. Reads with its own client, so the soak's injected
 * faults never touch it.
 */
export function wokenEntriesProbe(client: DynamoDBClient, tableName: string) {
  const documents = DynamoDBDocumentClient.from(client);
  const itemsOf = async (task: string, prefix: string) => {
    const page = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${task}`, ':prefix': prefix },
        ConsistentRead: true,
      }),
    );
    return page.Items ?? [];
  };
  return async (task: string): Promise<string> => {
    const [woken, waiting] = await Promise.all([itemsOf(task, WOKEN_PREFIX), itemsOf(task, WAITING_PREFIX)]);
    const now = Date.now();
    const lines = woken.map(
      (item) =>
        `${String(item.sk).split('#').at(-1)} woken ${now - Number(item.wokenAt)} ms ago${item.withSlot === true ? ' (slot)' : ''}`,
    );
    return `${lines.join(', ') || 'none woken'}; ${waiting.length} waiting`;
  };
}
