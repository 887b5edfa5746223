import type { EpochMs } from '../../core/clock';
import { decodeJobMessage, encodeJobMessage, type JobMessageBody } from '../../core/model/job-message';
import { type LineEntry, linePosition, sameCreation, type TaskSlots } from '../../core/ports/waiting-line';
import { counterItems } from './counters';
import { copyAttributes, keptUnlessHeldIsLater } from './entry-copies';
import { Expressions } from './expressions';
import { rateOf } from './start-gate';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import {
  ITEM_KINDS,
  TASK_PREFIX,
  taskCounterKey,
  WAITING_PREFIX,
  WOKEN_PREFIX,
  waitingEntryKey,
  wokenEntryKey,
} from './table-design';
import { lineEntryOf, lineItemCount } from './woken-entries';

// A waiting line is the set of `WAIT#<position>` items in its task's partition (beside the counter):
// one Query reads it in line order, no index needed. See docs/adr/0003-waiting-line.md; the woken
// entries (`WOKEN#`) are in woken-entries.ts (ADR 0009).

/**
 * Puts the job in its task's line, then bumps the counter's `joins` (a slot on its way back to the
 * counter then reads the line again, `slotBack`) and returns the counter as bumped: a slot that went
 * back before is seen there. Undefined when the task has no counter (no slot was ever taken).
 */
export async function joinLine(
  context: StoreContext,
  input: { message: JobMessageBody; now: EpochMs },
): Promise<TaskSlots | undefined> {
  const { message } = input;
  const { task } = message.job;
  const condition = new Expressions();
  try {
    await context.put('joinLine', {
      Item: {
        ...waitingEntryKey(task, linePosition(message)),
        message: encodeJobMessage(message),
        ...copyAttributes(message),
        joinedAt: input.now,
      },
      ...condition.build(keptUnlessHeldIsLater(condition, message)),
    });
  } catch (error) {
    conditionFailure(error); // a later attempt of the job (or its newer revision) waits already
  }
  const bump = new Expressions().add('joins', 1);
  try {
    const output = await context.update('joinLine', {
      Key: taskCounterKey(task),
      ...bump.buildUpdate(`attribute_exists(${bump.name('pk')})`),
      ReturnValues: 'ALL_NEW',
    });
    return slotsOf(task, output.Attributes ?? {});
  } catch (error) {
    conditionFailure(error);
    return undefined;
  }
}

export async function lineHead(context: StoreContext, task: string): Promise<LineEntry | undefined> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.query('lineHead', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wait)',
      ExpressionAttributeValues: { ':pk': `${TASK_PREFIX}${task}`, ':wait': WAITING_PREFIX },
      ConsistentRead: true,
      Limit: 2,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      const entry = lineEntryOf(task, item, WAITING_PREFIX);
      if (entry) return entry;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return undefined;
}

export async function waitingCount(context: StoreContext, task: string): Promise<number> {
  const counts = await Promise.all(
    [WAITING_PREFIX, WOKEN_PREFIX].map((prefix) => lineItemCount(context, 'waitingCount', task, prefix)),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

export async function isWaiting(
  context: StoreContext,
  task: string,
  position: string,
  createToken?: string,
): Promise<boolean> {
  const outputs = await Promise.all(
    [waitingEntryKey(task, position), wokenEntryKey(task, position)].map((Key) =>
      context.get('isWaiting', {
        Key,
        ConsistentRead: true,
        // The entry's message, read only when there is one (a job waiting in its line is rare here)
        ProjectionExpression: createToken === undefined ? 'pk' : 'pk, #message',
        ...(createToken !== undefined && { ExpressionAttributeNames: { '#message': 'message' } }),
      }),
    ),
  );
  return outputs.some((output) => {
    if (output.Item === undefined) return false;
    const decoded =
      typeof output.Item.message === 'string' ? decodeJobMessage(output.Item.message) : undefined;
    return sameCreation(decoded?.ok ? decoded.message.job.createToken : undefined, createToken);
  });
}

export async function taskSlots(context: StoreContext, task: string): Promise<TaskSlots | undefined> {
  const output = await context.get('taskSlots', { Key: taskCounterKey(task), ConsistentRead: true });
  return output.Item && slotsOf(task, output.Item);
}

export async function allTaskSlots(context: StoreContext): Promise<TaskSlots[]> {
  const items = await counterItems(context, 'allTaskSlots');
  return [...items].map(([task, item]) => slotsOf(task, item));
}

/**
 * Pauses or resumes a task's line. A resume bumps `joins` as a join does: a slot on its way back that
 * read the counter while paused (and so did not read the line) is then refused its return and reads
 * the line again, since the resumer, which read the slot as still taken, wakes nobody for it.
 */
export async function setTaskPaused(
  context: StoreContext,
  task: string,
  paused: boolean,
): Promise<TaskSlots> {
  const update = new Expressions().set('kind', ITEM_KINDS.counter);
  if (paused) update.set('paused', true);
  else update.remove('paused').add('joins', 1);
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
