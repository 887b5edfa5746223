import type { EpochMs } from '../../core/clock';
import { decodeJobMessage, encodeJobMessage } from '../../core/model/job-message';
import {
  type LineEntry,
  lineKeeps,
  type MessageCopy,
  sameCopy,
  type WakeHeadsInput,
  type WakeTime,
  type WokenEntry,
  type WokenPostponement,
  wakeTime,
  wokenOverdueAt,
} from '../../core/ports/waiting-line';
import { carriesCopy, copyAttributes, setCopy } from './entry-copies';
import { Expressions } from './expressions';
import {
  conditionFailure,
  type StoreContext,
  type StoredItem,
  transactionCancellation,
} from './store-context';
import {
  ITEM_KINDS,
  TASK_PREFIX,
  taskCounterKey,
  WAITING_PREFIX,
  WOKEN_PREFIX,
  waitingEntryKey,
  wokenEntryKey,
} from './table-design';

// Woken entries (ADR 0009) are `WOKEN#<position>` items beside the line's `WAIT#` items: waking moves
// an entry from one to the other in the transaction that gives it what it takes (a slot, or nothing).
// `withSlot` is stored only when true, so conditions can tell the two kinds apart.

type TransactItem = Record<string, unknown>;

/**
 * The transaction items that move `entry` from waiting to woken at `at`: its `WAIT#` item is deleted
 * (while it still carries the copy read: a later one that joined since is not this waker's to move)
 * and its `WOKEN#` item put (unless the job is woken already).
 */
export function wakeItems(
  context: StoreContext,
  entry: LineEntry,
  at: WakeTime,
  withSlot: boolean,
): TransactItem[] {
  const waiting = new Expressions();
  const stillWaits = carriesCopy(waiting, entry.message);
  return [
    {
      Delete: {
        TableName: context.tableName,
        Key: waitingEntryKey(entry.task, entry.position),
        ...waiting.build(stillWaits),
      },
    },
    {
      Put: {
        TableName: context.tableName,
        Item: {
          ...wokenEntryKey(entry.task, entry.position),
          message: encodeJobMessage(entry.message),
          ...copyAttributes(entry.message),
          joinedAt: entry.joinedAt,
          wokenAt: at.now,
          overdueAt: at.overdueAt,
          ...(withSlot && { withSlot: true }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/**
 * The transaction items that wake `entry` into the woken entry at its own position, while that entry
 * still carries `replaced.copy` (and, with `replaced.withSlot`, holds a slot): a woken entry given
 * back whose job's second delivery joined while its wake-up travelled, or one a later copy of its job
 * settles into (`settleBehindWoken`). One item per key: DynamoDB refuses a transaction that deletes
 * and puts the same item.
 */
export function wakeInPlaceItems(
  context: StoreContext,
  entry: LineEntry,
  at: WakeTime,
  replaced: { copy: MessageCopy; withSlot: boolean },
): TransactItem[] {
  const [deleteWaiting] = wakeItems(context, entry, at, true);
  const woken = setCopy(new Expressions(), entry.message)
    .set('message', encodeJobMessage(entry.message))
    .set('joinedAt', entry.joinedAt)
    .set('wokenAt', at.now)
    .set('overdueAt', at.overdueAt);
  const stillCarries = carriesCopy(woken, replaced.copy);
  const stillHeld = replaced.withSlot
    ? `attribute_exists(${woken.name('withSlot')}) AND ${stillCarries}`
    : stillCarries;
  return [
    deleteWaiting as TransactItem,
    {
      Update: {
        TableName: context.tableName,
        Key: wokenEntryKey(entry.task, entry.position),
        ...woken.buildUpdate(stillHeld),
      },
    },
  ];
}

/** The entry as woken by `wakeItems`. */
export function wokenOf(entry: LineEntry, at: WakeTime, withSlot: boolean): WokenEntry {
  return { ...entry, wokenAt: at.now, overdueAt: at.overdueAt, withSlot };
}

/**
 * The counter item of a hand-off: the slot that comes back stays taken, for the woken job, only while
 * the task is not paused and its limit was not lowered under the slots taken. `seq` grows: the holders
 * changed (counter repair compares it).
 */
export function handOnItem(context: StoreContext, task: string): TransactItem {
  const update = new Expressions().add('seq', 1);
  const running = update.name('running');
  const limit = update.name('limit');
  const condition =
    `attribute_not_exists(${update.name('paused')})` +
    ` AND (attribute_not_exists(${limit}) OR ${running} <= ${limit})`;
  return {
    Update: { TableName: context.tableName, Key: taskCounterKey(task), ...update.buildUpdate(condition) },
  };
}

/** The counter item that takes a free slot for a woken job: never while paused or at `limit`. */
function takeSlotItem(context: StoreContext, task: string, limit: number): TransactItem {
  const update = new Expressions()
    .set('kind', ITEM_KINDS.counter)
    .set('limit', limit)
    .add('running', 1)
    .add('seq', 1);
  const running = update.name('running');
  const condition =
    `attribute_not_exists(${update.name('paused')})` +
    ` AND (attribute_not_exists(${running}) OR ${running} < ${update.value(limit)})`;
  return {
    Update: { TableName: context.tableName, Key: taskCounterKey(task), ...update.buildUpdate(condition) },
  };
}

export async function wakeHeads(context: StoreContext, input: WakeHeadsInput): Promise<WokenEntry[]> {
  const woken: WokenEntry[] = [];
  let taken = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('wakeHeads', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wait)',
      ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${input.task}`, ':wait': WAITING_PREFIX },
      ConsistentRead: true,
      Limit: input.count - taken + 1,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      const entry = lineEntryOf(input.task, item, WAITING_PREFIX);
      if (!entry) continue;
      const outcome = await wakeOne(context, entry, input);
      if (outcome === 'stop') return woken;
      if (outcome === 'skipped') continue;
      woken.push(outcome);
      if (!outcome.movedIn) taken += 1;
      if (taken >= input.count) return woken;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return woken;
}

/**
 * Wakes one entry: `stop` when the task has no slot to give, `skipped` when the entry left or was woken
 * already; a later copy of a job woken already comes back moved into its woken entry.
 */
async function wakeOne(
  context: StoreContext,
  entry: LineEntry,
  input: WakeHeadsInput,
): Promise<WokenEntry | 'stop' | 'skipped'> {
  const withSlot = input.take === 'slot';
  const at = wakeTime(input.now);
  const items = wakeItems(context, entry, at, withSlot);
  if (input.take === 'slot') items.push(takeSlotItem(context, input.task, input.limit));
  try {
    await context.transact('wakeHeads', { TransactItems: items });
    return wokenOf(entry, at, withSlot);
  } catch (error) {
    const [waiting, wokenPut, slot] = transactionCancellation(error);
    if (slot?.code === 'ConditionalCheckFailed') return 'stop';
    if (waiting?.code !== 'ConditionalCheckFailed' && wokenPut?.code === 'ConditionalCheckFailed') {
      const settled = await settleBehindWoken(context, entry, at);
      if (typeof settled === 'object') return settled;
    }
    return 'skipped';
  }
}

/**
 * A waiting entry whose job is woken already leaves the line (`left`): a second delivery of the woken
 * copy (or an older one), nothing more to do; a later copy (a retry that joined while the earlier
 * attempt's wake-up travelled, the earlier one run by a plain delivery; or a newer revision's copy of a
 * fire, whose older copy's check cancels in its favour) goes into the woken entry in its place, with
 * its slot, woken at `at` (returned, `movedIn`: its message is the caller's to send). The older copy's
 * delivery then finds its entry gone (`sameCopy`). `changed` when either entry changed meanwhile (read
 * the line again).
 */
export async function settleBehindWoken(
  context: StoreContext,
  entry: LineEntry,
  at: WakeTime,
): Promise<Settled> {
  const woken = await wokenEntry(context, entry.task, entry.position, 'wakeHeads');
  if (!woken) return 'changed';
  const waiting = new Expressions();
  const stillWaits = waiting.build(carriesCopy(waiting, entry.message));
  const waitingKey = waitingEntryKey(entry.task, entry.position);
  if (sameCopy(entry.message, woken.message) || lineKeeps(entry.message, woken.message) === 'held') {
    try {
      await context.delete('wakeHeads', { Key: waitingKey, ...stillWaits });
      return 'left';
    } catch (error) {
      conditionFailure(error);
      return 'changed';
    }
  }
  try {
    await context.transact('wakeHeads', {
      TransactItems: wakeInPlaceItems(context, entry, at, { copy: woken.message, withSlot: false }),
    });
    return { ...wokenOf(entry, at, woken.withSlot), movedIn: true };
  } catch (error) {
    transactionCancellation(error);
    return 'changed';
  }
}

/** What became of a waiting entry whose job was woken already (`settleBehindWoken`). */
export type Settled = 'left' | 'changed' | WokenEntry;

/** A woken entry, read consistently (for a claim that may take its slot). */
export async function wokenEntry(
  context: StoreContext,
  task: string,
  position: string,
  operation = 'claimJob',
): Promise<WokenEntry | undefined> {
  const output = await context.get(operation, { Key: wokenEntryKey(task, position), ConsistentRead: true });
  return output.Item && wokenEntryOf(task, output.Item);
}

export async function overdueWoken(context: StoreContext, task: string, now: EpochMs): Promise<WokenEntry[]> {
  const stale: WokenEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('overdueWoken', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :woken)',
      FilterExpression: 'overdueAt <= :now',
      ExpressionAttributeValues: {
        ':pk': `${TASK_PREFIX}${task}`,
        ':woken': WOKEN_PREFIX,
        ':now': now,
      },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      const entry = wokenEntryOf(task, item);
      if (entry) stale.push(entry);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return stale;
}

export async function markWokenResent(
  context: StoreContext,
  entry: Pick<WokenEntry, 'task' | 'position' | 'wokenAt'>,
  now: EpochMs,
): Promise<boolean> {
  const update = new Expressions().set('wokenAt', now).set('overdueAt', wokenOverdueAt(now));
  try {
    await context.update('markWokenResent', {
      Key: wokenEntryKey(entry.task, entry.position),
      ...update.buildUpdate(`${update.name('wokenAt')} = ${update.value(entry.wokenAt)}`),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    // Gone (claimed or given back), or another resend took it; or this write applied and its answer was
    // lost (the store retried it): then its `wokenAt` is ours.
    const { old } = conditionFailure(error);
    return old !== undefined && Number(old.wokenAt) === now;
  }
}

export async function postponeWoken(
  context: StoreContext,
  { task, position, copy, now, until }: WokenPostponement,
): Promise<boolean> {
  const update = new Expressions().set('wokenAt', now).set('overdueAt', wokenOverdueAt(until));
  try {
    await context.update('postponeWoken', {
      Key: wokenEntryKey(task, position),
      ...update.buildUpdate(`attribute_exists(pk) AND ${carriesCopy(update, copy)}`),
    });
    return true;
  } catch (error) {
    conditionFailure(error);
    return false;
  }
}

/** How many woken entries of the task hold a slot (what its counter counts besides running jobs). */
export function wokenSlotCount(context: StoreContext, task: string): Promise<number> {
  return lineItemCount(context, 'repairCounters', task, WOKEN_PREFIX, 'attribute_exists(withSlot)');
}

/** How many items of the task's line (`prefix`: `WAIT#` or `WOKEN#`) there are (that pass `filter`), read consistently. */
export async function lineItemCount(
  context: StoreContext,
  operation: string,
  task: string,
  prefix: string,
  filter?: string,
): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query(operation, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ...(filter && { FilterExpression: filter }),
      ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${task}`, ':prefix': prefix },
      ConsistentRead: true,
      Select: 'COUNT',
      ExclusiveStartKey: startKey,
    });
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** The line entry an item of the task's partition holds (`prefix`: `WAIT#` or `WOKEN#`); undefined when unreadable. */
export function lineEntryOf(task: string, item: StoredItem, prefix: string): LineEntry | undefined {
  const decoded = decodeJobMessage(String(item.message));
  if (!decoded.ok) return undefined;
  return {
    task,
    position: String(item.sk).slice(prefix.length),
    message: decoded.message,
    joinedAt: Number(item.joinedAt),
  };
}

function wokenEntryOf(task: string, item: StoredItem): WokenEntry | undefined {
  const entry = lineEntryOf(task, item, WOKEN_PREFIX);
  return (
    entry && {
      ...entry,
      wokenAt: Number(item.wokenAt),
      overdueAt: Number(item.overdueAt),
      withSlot: item.withSlot === true,
    }
  );
}
