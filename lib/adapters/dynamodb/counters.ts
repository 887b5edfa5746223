import type { EpochMs } from '../../core/clock';
import { Expressions } from './expressions';
import { conditionFailure, type StoreContext } from './store-context';
import {
  INDEX_NAMES,
  ITEM_KINDS,
  type ItemKey,
  idFromPartitionKey,
  shardKeys,
  TASK_PREFIX,
  taskCounterKey,
} from './table-design';

/** The transaction item that takes one of the task's slots, only while fewer than `limit` are taken. */
export function takeSlotItem(context: StoreContext, task: string, limit: number) {
  const update = new Expressions().add('running', 1).set('limit', limit).set('kind', ITEM_KINDS.counter);
  const running = update.name('running');
  const condition = `attribute_not_exists(${running}) OR ${running} < ${update.value(limit)}`;
  return {
    Update: {
      TableName: context.tableName,
      Key: taskCounterKey(task),
      ...update.buildUpdate(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/** The transaction item that gives one slot back. */
export function returnSlotItem(context: StoreContext, task: string) {
  const update = new Expressions().add('running', -1);
  return { Update: { TableName: context.tableName, Key: taskCounterKey(task), ...update.buildUpdate() } };
}

/** Every counter item, by task (from the `by-kind` index, then read consistently). */
export async function runningCounts(context: StoreContext): Promise<Map<string, number>> {
  const keys: ItemKey[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('runningCounts', {
      IndexName: INDEX_NAMES.byKind,
      KeyConditionExpression: '#kind = :kind',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: { ':kind': ITEM_KINDS.counter },
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) keys.push({ pk: String(item.pk), sk: String(item.sk) });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const items = await context.batchGet('runningCounts', keys);
  const counts = new Map<string, number>();
  for (const [pk, item] of items) counts.set(idFromPartitionKey(pk, TASK_PREFIX), Number(item.running ?? 0));
  return counts;
}

/** Slot-holding running jobs per task, from the running index (which projects `task` and `holdsSlot`). */
async function countSlotHolders(context: StoreContext): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await Promise.all(
    Array.from({ length: context.shards }, async (_, shard) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await context.query('repairCounters', {
          IndexName: INDEX_NAMES.running,
          KeyConditionExpression: '#shard = :shard',
          ExpressionAttributeNames: { '#shard': 'runShard' },
          ExpressionAttributeValues: { ':shard': shardKeys.running(shard) },
          ExclusiveStartKey: startKey,
        });
        for (const item of page.Items ?? []) {
          if (item.holdsSlot === true)
            counts.set(String(item.task), (counts.get(String(item.task)) ?? 0) + 1);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }),
  );
  return counts;
}

/**
 * Sets each counter to the number of its task's slot-holding running jobs. Each correction is conditional
 * on the counter still holding the value read, so a concurrent claim or finish wins (the next repair retries).
 */
export async function repairCounters(
  context: StoreContext,
  _now: EpochMs,
): Promise<Map<string, { was: number; now: number }>> {
  const recorded = await runningCounts(context);
  const actual = await countSlotHolders(context);
  const corrections = new Map<string, { was: number; now: number }>();
  for (const task of new Set([...recorded.keys(), ...actual.keys()])) {
    const was = recorded.get(task);
    const counted = actual.get(task) ?? 0;
    if (was === counted || (was === undefined && counted === 0)) continue;
    const update = new Expressions().set('running', counted).set('kind', ITEM_KINDS.counter);
    const running = update.name('running');
    const condition =
      was === undefined ? `attribute_not_exists(${running})` : `${running} = ${update.value(was)}`;
    try {
      await context.update('repairCounters', { Key: taskCounterKey(task), ...update.build(condition) });
      corrections.set(task, { was: was ?? 0, now: counted });
    } catch (error) {
      conditionFailure(error);
    }
  }
  return corrections;
}
