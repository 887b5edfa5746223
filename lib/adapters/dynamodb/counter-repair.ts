import type { EpochMs } from '../../core/clock';
import { type CounterRepair, counterRepair, type TaskCounter } from '../../core/ports/counter-repair';
import { counterItems } from './counters';
import { Expressions } from './expressions';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { INDEX_NAMES, ITEM_KINDS, type ItemKey, shardKeys, taskCounterKey } from './table-design';
import { wokenSlotCount } from './woken-entries';

/**
 * Brings each counter towards the number of its task's slot holders by the rule of `counterRepair`:
 * its running jobs that hold a slot and its woken entries handed one (ADR 0009). The running jobs come
 * from the running index (eventually consistent); when the holders differ from the counter, each is
 * read again consistently so that index entries of runs that already ended do not count.
 * The previous repair's observation is kept on the counter item (`repairSeq`, `repairCount`, `repairAt`):
 * ticks are stateless. Every write is conditional on the counter's `seq` and `running` as read.
 */
export async function repairCounters(
  context: StoreContext,
  now: EpochMs,
): Promise<Map<string, { was: number; now: number }>> {
  const counters = await counterItems(context, 'repairCounters');
  const indexed = await indexedSlotHolders(context);
  const corrections = new Map<string, { was: number; now: number }>();
  for (const task of new Set([...counters.keys(), ...indexed.keys()])) {
    const item = counters.get(task);
    const counter = taskCounter(item);
    const keys = indexed.get(task) ?? [];
    const woken = await wokenSlotCount(context, task);
    if (keys.length + woken === counter.running) continue;
    const repair = counterRepair(counter, (await stillHoldingSlots(context, keys)) + woken, now);
    if (repair.action === 'none' || !(await writeIfUnchanged(context, task, item, repair))) continue;
    if (repair.action === 'set') corrections.set(task, { was: counter.running, now: repair.running });
  }
  return corrections;
}

function taskCounter(item: StoredItem | undefined): TaskCounter {
  const counter: TaskCounter = { running: Number(item?.running ?? 0), seq: Number(item?.seq ?? 0) };
  if (item?.repairSeq !== undefined) {
    counter.observed = {
      seq: Number(item.repairSeq),
      count: Number(item.repairCount),
      at: Number(item.repairAt),
    };
  }
  return counter;
}

/** Keys of the running jobs the running index lists as slot holders (it projects `task` and `holdsSlot`), per task. */
async function indexedSlotHolders(context: StoreContext): Promise<Map<string, ItemKey[]>> {
  const holders = new Map<string, ItemKey[]>();
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
          if (item.holdsSlot !== true) continue;
          const task = String(item.task);
          holders.set(task, [...(holders.get(task) ?? []), { pk: String(item.pk), sk: String(item.sk) }]);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }),
  );
  return holders;
}

async function stillHoldingSlots(context: StoreContext, keys: readonly ItemKey[]): Promise<number> {
  const items = await context.batchGet('repairCounters', keys);
  return [...items.values()].filter((item) => item.status === 'running' && item.holdsSlot === true).length;
}

/** Writes the repair unless a slot was taken or given back (or another repair wrote) since `item` was read. */
async function writeIfUnchanged(
  context: StoreContext,
  task: string,
  item: StoredItem | undefined,
  repair: Exclude<CounterRepair, { action: 'none' }>,
): Promise<boolean> {
  const update = new Expressions();
  if (repair.action === 'set') update.set('running', repair.running).set('kind', ITEM_KINDS.counter);
  else {
    const { seq, count, at } = repair.observation;
    update.set('repairSeq', seq).set('repairCount', count).set('repairAt', at);
  }
  const asRead = (attribute: 'seq' | 'running') =>
    item?.[attribute] === undefined
      ? `attribute_not_exists(${update.name(attribute)})`
      : `${update.name(attribute)} = ${update.value(item[attribute])}`;
  try {
    await context.update('repairCounters', {
      Key: taskCounterKey(task),
      ...update.buildUpdate(`${asRead('seq')} AND ${asRead('running')}`),
    });
    return true;
  } catch (error) {
    conditionFailure(error);
    return false;
  }
}
