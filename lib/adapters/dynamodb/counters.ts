import type { StoreContext, StoredItem } from './store-context';
import { INDEX_NAMES, ITEM_KINDS, type ItemKey, idFromPartitionKey, TASK_PREFIX } from './table-design';

// Task counter items: `running` counts the slots taken, `seq` grows with every slot taken or given back
// (so a repair can tell that the counter changed even when `running` came back to the value it read).

/** Every counter item, by task (keys from the `by-kind` index, then the items read consistently). */
export async function counterItems(
  context: StoreContext,
  operation: string,
): Promise<Map<string, StoredItem>> {
  const keys: ItemKey[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query(operation, {
      IndexName: INDEX_NAMES.byKind,
      KeyConditionExpression: '#kind = :kind',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: { ':kind': ITEM_KINDS.counter },
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) keys.push({ pk: String(item.pk), sk: String(item.sk) });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const items = await context.batchGet(operation, keys);
  return new Map([...items.values()].map((item) => [idFromPartitionKey(String(item.pk), TASK_PREFIX), item]));
}

export async function runningCounts(context: StoreContext): Promise<Map<string, number>> {
  const items = await counterItems(context, 'runningCounts');
  return new Map([...items].map(([task, item]) => [task, Number(item.running ?? 0)]));
}
