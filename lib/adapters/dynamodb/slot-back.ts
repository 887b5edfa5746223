import { StoreUnavailableError } from '../../core/errors';
import {
  type MessageCopy,
  sameCopy,
  type WakeTime,
  type WokenEntry,
  type WokenRelease,
  type WokenReleaseInput,
  wakeTime,
} from '../../core/ports/waiting-line';
import { carriesCopy } from './entry-copies';
import { Expressions } from './expressions';
import {
  type CancellationReason,
  conditionFailure,
  type StoreContext,
  transactionCancellation,
} from './store-context';
import { taskCounterKey, WOKEN_PREFIX, wokenEntryKey } from './table-design';
import { lineHead } from './waiting-line';
import {
  handOnItem,
  lineEntryOf,
  settleBehindWoken,
  wakeInPlaceItems,
  wakeItems,
  wokenOf,
} from './woken-entries';

type TransactItem = Record<string, unknown>;

/** How often a slot's way back reads the line again because jobs kept joining it meanwhile. */
const MAX_LINE_READS = 5;

/**
 * The caller's transaction with a slot's items added: `applied`, or the reasons its slot items failed
 * (it throws for anything else, its own items' failures included).
 */
export type SlotTry = (
  slotItems: TransactItem[],
  /** The items move the released woken entry in place themselves: the caller adds no item of it. */
  inPlace: boolean,
) => Promise<'applied' | readonly CancellationReason[]>;

/**
 * Where a slot that comes back goes (ADR 0009): to the line's head, woken in the caller's transaction,
 * or back to the counter only while no job joined the line since it was read. A joiner bumps the
 * counter's `joins` once its entry is in (`joinLine`), so either this return sees the bump (and reads
 * the line again) or the joiner's bump sees the slot back and wakes the line itself: a slot is never
 * free while a job waits, whoever crashes after their step. A head that left the line since the read
 * (another slot coming back was handed to it) makes it read the line again: `joins` says nobody
 * joined, not that the line is the one read, so it never decides a return. A head woken already (a
 * second delivery of its job joined while its wake-up travelled) leaves the line, as `wakeHeads` does
 * it. Returns the entry the slot was handed to.
 *
 * `counterRead`: the counter as the caller read it just before (beside its own read), for the first
 * try. `released`: the position of the woken entry the caller gives back; when a second delivery of
 * that job waits at the head, it takes the slot in the entry's place (`inPlace`).
 */
export async function slotBack(
  context: StoreContext,
  operation: string,
  task: string,
  at: WakeTime,
  tryWith: SlotTry,
  counterRead?: CounterRead,
  released?: { position: string; copy: MessageCopy },
): Promise<WokenEntry | undefined> {
  for (let read = 0; read < MAX_LINE_READS; read += 1) {
    const counter = read === 0 && counterRead ? counterRead : await readCounter(context, operation, task);
    const joins = Number(counter.Item?.joins ?? 0);
    const head = counter.Item?.paused === true ? undefined : await lineHead(context, task);
    if (head) {
      const inPlace = head.position === released?.position;
      const items =
        released && inPlace
          ? wakeInPlaceItems(context, head, at, { copy: released.copy, withSlot: true })
          : wakeItems(context, head, at, true);
      const handed = await tryWith([...items, handOnItem(context, task)], inPlace);
      if (handed === 'applied') return wokenOf(head, at, true);
      const [waiting, wokenPut] = handed;
      // The head left the line since it was read (another slot coming back woke it, or it was woken
      // for its turn): the slot goes to whoever is at the head now, so the line is read again.
      if (waiting?.code === 'ConditionalCheckFailed') continue;
      if (!inPlace && wokenPut?.code === 'ConditionalCheckFailed') {
        // Settled, the line is shorter by one: that read does not count. A later copy moved in is
        // overdue at once: the worker that gave the slot back sends the task's overdue entries next.
        const overdueNow = { now: at.now, overdueAt: at.now };
        if ((await settleBehindWoken(context, head, overdueNow)) !== 'changed') read -= 1;
        continue;
      }
      // Otherwise the counter refused the hand-on (paused, or a limit lowered under the slots taken).
    }
    const running = Number(counter.Item?.running ?? 0);
    if ((await tryWith([slotReturnItem(context, task, running > 0, joins)], false)) === 'applied')
      return undefined;
  }
  throw new StoreUnavailableError(`${operation} (the task's line kept changing)`);
}

export type CounterRead = Awaited<ReturnType<typeof readCounter>>;

/** The task's counter, read strongly (a slot's way back reads it before the line: `joins` first). */
export function readCounter(context: StoreContext, operation: string, task: string) {
  return context.get(operation, { Key: taskCounterKey(task), ConsistentRead: true });
}

/**
 * The counter item of a slot that goes back, while the line's `joins` is still `joins`: one less
 * running, or (`counted: false`, a counter at 0 that drifted low) only the change recorded, so that a
 * counter never goes below 0. `seq` grows: the holders changed (counter repair compares it).
 */
function slotReturnItem(context: StoreContext, task: string, counted: boolean, joins: number): TransactItem {
  const update = new Expressions().add('seq', 1);
  if (counted) update.add('running', -1);
  const joinsName = update.name('joins');
  const unchanged =
    joins === 0 ? `attribute_not_exists(${joinsName})` : `${joinsName} = ${update.value(joins)}`;
  const condition = counted ? `${update.name('running')} > ${update.value(0)} AND ${unchanged}` : unchanged;
  return {
    Update: { TableName: context.tableName, Key: taskCounterKey(task), ...update.buildUpdate(condition) },
  };
}

/**
 * A woken delivery that ends without running gives its entry back: an entry without a slot is deleted;
 * one with a slot goes in the transaction that hands the slot on or gives it back (`slotBack`). An
 * entry that carries another copy than the delivery's (a later one settled into it,
 * `settleBehindWoken`) is not its to give: it is left, as gone, and so is one that came to carry one
 * meanwhile (each step holds the delivery's copy).
 */
export async function releaseWoken(context: StoreContext, input: WokenReleaseInput): Promise<WokenRelease> {
  const key = wokenEntryKey(input.task, input.position);
  const output = await context.get('releaseWoken', { Key: key, ConsistentRead: true });
  const entry = output.Item && lineEntryOf(input.task, output.Item, WOKEN_PREFIX);
  if (!output.Item || !entry || !sameCopy(entry.message, input.copy)) return { status: 'gone' };
  const expressions = new Expressions();
  const withSlot = expressions.name('withSlot');
  const stillCarries = carriesCopy(expressions, entry.message);
  if (output.Item.withSlot !== true) {
    try {
      await context.delete('releaseWoken', {
        Key: key,
        ...expressions.build(`attribute_not_exists(${withSlot}) AND ${stillCarries}`),
      });
    } catch (error) {
      conditionFailure(error);
    }
    return { status: 'gone' };
  }
  const entryGone = {
    Delete: {
      TableName: context.tableName,
      Key: key,
      ...expressions.build(`attribute_exists(${withSlot}) AND ${stillCarries}`),
    },
  };
  let gone = false;
  const at = wakeTime(input.now, input.carriedOn);
  const woken = await slotBack(
    context,
    'releaseWoken',
    input.task,
    at,
    async (slotItems, inPlace) => {
      try {
        await context.transact('releaseWoken', {
          TransactItems: inPlace ? slotItems : [entryGone, ...slotItems],
        });
        return 'applied';
      } catch (error) {
        const reasons = transactionCancellation(error);
        // In place, the entry's own update is one of the slot's items: the second, after the delete.
        const entry = inPlace ? reasons[1] : reasons[0];
        const slotReasons = inPlace ? reasons : reasons.slice(1);
        if (entry?.code !== 'ConditionalCheckFailed') return slotReasons;
        gone = true;
        return 'applied';
      }
    },
    undefined,
    { position: input.position, copy: entry.message },
  );
  if (gone) return { status: 'gone' };
  return woken ? { status: 'handed', woken } : { status: 'released' };
}
