import type { EpochMs } from '../../core/clock';
import { decodeJobMessage, encodeJobMessage, type JobMessageBody } from '../../core/model/job-message';
import {
  type LeaseLineHeadInput,
  type LineEntry,
  linePosition,
  type TaskSlots,
} from '../../core/ports/waiting-line';
import { counterItems } from './counters';
import { Expressions } from './expressions';
import { rateOf } from './start-gate';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { ITEM_KINDS, TASK_PREFIX, taskCounterKey, WAITING_PREFIX, waitingEntryKey } from './table-design';

// A waiting line is the set of `WAIT#<position>` items in its task's partition (beside the counter):
// one Query reads it in line order, no index needed. See docs/adr/0003-waiting-line.md.

export async function joinLine(
  context: StoreContext,
  input: { message: JobMessageBody; now: EpochMs },
): Promise<void> {
  const { message } = input;
  const expressions = new Expressions();
  // The higher attempt's message wins; an equal one overwrites (ends a waker's hold: the job is back).
  const condition = `attribute_not_exists(pk) OR ${expressions.name('attempt')} <= ${expressions.value(message.attempt)}`;
  try {
    await context.put('joinLine', {
      Item: {
        ...waitingEntryKey(message.job.task, linePosition(message)),
        message: encodeJobMessage(message),
        attempt: message.attempt,
        joinedAt: input.now,
      },
      ...expressions.build(condition),
    });
  } catch (error) {
    conditionFailure(error); // a later attempt of the job waits already
  }
}

export async function leaseLineHead(context: StoreContext, input: LeaseLineHeadInput): Promise<LineEntry[]> {
  const taken: LineEntry[] = [];
  let held = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('leaseLineHead', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wait)',
      ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${input.task}`, ':wait': WAITING_PREFIX },
      ConsistentRead: true,
      Limit: Math.max(10, input.count * 2),
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      if (taken.length + held >= input.count) return taken;
      if (Number(item.wakeUntil ?? 0) >= input.now) {
        if (input.leased === 'count') held += 1;
        continue;
      }
      if (input.only !== undefined && String(item.sk).slice(WAITING_PREFIX.length) !== input.only) {
        held += 1;
        continue;
      }
      const entry =
        input.only === undefined
          ? await holdEntry(context, item, input)
          : await takeEntry(context, item, input);
      if (entry) taken.push(entry);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && taken.length + held < input.count);
  return taken;
}

async function holdEntry(
  context: StoreContext,
  item: StoredItem,
  input: LeaseLineHeadInput,
): Promise<LineEntry | undefined> {
  const update = new Expressions().set('wakeOwner', input.owner).set('wakeUntil', input.now + input.leaseMs);
  const wakeUntil = update.name('wakeUntil');
  const condition =
    `${update.name('attempt')} = ${update.value(item.attempt)}` +
    ` AND (attribute_not_exists(${wakeUntil}) OR ${wakeUntil} < ${update.value(input.now)})`;
  try {
    const output = await context.update('leaseLineHead', {
      Key: { pk: String(item.pk), sk: String(item.sk) },
      ...update.buildUpdate(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return entryOf(input.task, output.Attributes ?? item);
  } catch (error) {
    // Another waker took it, or it left the line; or this hold applied and its answer was lost (the
    // store retried it): it is ours. Read as another's, it was a hold no message followed, which every
    // count of free slots took for a job on its way until it ended (the soak found such stalls).
    const { old } = conditionFailure(error);
    const ours = old?.wakeOwner === input.owner && Number(old.wakeUntil) === input.now + input.leaseMs;
    return ours ? entryOf(input.task, old) : undefined;
  }
}

/**
 * Deletes the entry while no waker holds it (and it is the attempt read): a job taking its own turn. An
 * entry already gone is taken too: either this delete applied and its answer was lost (the store retried
 * it), or a waker sent it on and then deleted it, whose message is then a duplicate dropped at claim.
 * Reading "gone" as "not mine" lost the job: it was in neither the line nor the queue.
 */
async function takeEntry(
  context: StoreContext,
  item: StoredItem,
  input: LeaseLineHeadInput,
): Promise<LineEntry | undefined> {
  const expressions = new Expressions();
  const wakeUntil = expressions.name('wakeUntil');
  const condition =
    `${expressions.name('attempt')} = ${expressions.value(item.attempt)}` +
    ` AND (attribute_not_exists(${wakeUntil}) OR ${wakeUntil} < ${expressions.value(input.now)})`;
  try {
    await context.delete('leaseLineHead', {
      Key: { pk: String(item.pk), sk: String(item.sk) },
      ...expressions.build(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return entryOf(input.task, item);
  } catch (error) {
    const { old } = conditionFailure(error);
    // Still there: a waker holds it now (its message is on its way), or it changed
    return old === undefined ? entryOf(input.task, item) : undefined;
  }
}

function entryOf(task: string, item: StoredItem): LineEntry | undefined {
  const decoded = decodeJobMessage(String(item.message));
  if (!decoded.ok) return undefined;
  return {
    task,
    position: String(item.sk).slice(WAITING_PREFIX.length),
    message: decoded.message,
    joinedAt: Number(item.joinedAt),
  };
}

export async function leaveLine(
  context: StoreContext,
  task: string,
  position: string,
  owner: string,
): Promise<void> {
  const expressions = new Expressions();
  const condition = `${expressions.name('wakeOwner')} = ${expressions.value(owner)}`;
  try {
    await context.delete('leaveLine', {
      Key: waitingEntryKey(task, position),
      ...expressions.build(condition),
    });
  } catch (error) {
    conditionFailure(error); // back in the line (joined again) or gone already
  }
}

export async function waitingCount(context: StoreContext, task: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('waitingCount', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wait)',
      ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${task}`, ':wait': WAITING_PREFIX },
      Select: 'COUNT',
      ExclusiveStartKey: startKey,
    });
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

export async function isWaiting(context: StoreContext, task: string, position: string): Promise<boolean> {
  const output = await context.get('isWaiting', {
    Key: waitingEntryKey(task, position),
    ConsistentRead: true,
    ProjectionExpression: 'pk',
  });
  return output.Item !== undefined;
}

export async function taskSlots(context: StoreContext, task: string): Promise<TaskSlots | undefined> {
  const output = await context.get('taskSlots', { Key: taskCounterKey(task), ConsistentRead: true });
  return output.Item && slotsOf(task, output.Item);
}

export async function allTaskSlots(context: StoreContext): Promise<TaskSlots[]> {
  const items = await counterItems(context, 'allTaskSlots');
  return [...items].map(([task, item]) => slotsOf(task, item));
}

export async function setTaskPaused(
  context: StoreContext,
  task: string,
  paused: boolean,
): Promise<TaskSlots> {
  const update = new Expressions().set('kind', ITEM_KINDS.counter);
  if (paused) update.set('paused', true);
  else update.remove('paused');
  const output = await context.update('setTaskPaused', {
    Key: taskCounterKey(task),
    ...update.buildUpdate(),
    ReturnValues: 'ALL_NEW',
  });
  return slotsOf(task, output.Attributes ?? {});
}

function slotsOf(task: string, item: StoredItem): TaskSlots {
  return {
    task,
    running: Number(item.running ?? 0),
    limit: item.limit === undefined ? null : Number(item.limit),
    paused: item.paused === true,
    ...rateOf(item),
  };
}
