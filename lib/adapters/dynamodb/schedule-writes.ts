import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  ConflictingIdError,
  ScheduleMovedError,
  ScheduleNotFoundError,
  VersionConflictError,
} from '../../core/errors';
import type { Schedule } from '../../core/model/schedule';
import type {
  AddScheduleInput,
  AddScheduleOutcome,
  ChainStart,
  FinishOutcome,
  FinishScheduleInput,
  PauseScheduleInput,
  ResumeScheduleInput,
  SchedulePosition,
  UpdateScheduleInput,
} from '../../core/ports/schedule-store';
import { firstNoteItem } from './due-notes';
import { Expressions } from './expressions';
import { sameItem } from './item-equality';
import {
  definitionAttributes,
  itemToSchedule,
  OPTIONAL_DEFINITION_ATTRIBUTES,
  POSITION_ATTRIBUTES,
  positionAttributes,
  scheduleToItem,
} from './schedule-items';
import {
  conditionFailure,
  type StoreContext,
  type StoredItem,
  transactionCancellation,
} from './store-context';
import { ITEM_KINDS, removedScheduleKey, scheduleKey } from './table-design';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export async function addSchedule(
  context: StoreContext,
  input: AddScheduleInput,
): Promise<AddScheduleOutcome> {
  const { schedule: definition, now, start } = input;
  if (input.conflictPolicy === 'replace') return replaceSchedule(context, input);
  const schedule: Schedule = {
    ...definition,
    ...input.position,
    firesFrom: now,
    version: 1,
    createdAt: now,
    updatedAt: now,
    chain: start?.chain ?? null,
    startedRuns: input.startedRuns ?? 0,
    lastStartedFireAt: null,
  };
  const item = scheduleToItem(schedule);
  try {
    await writeWithChain(
      context,
      'addSchedule',
      {
        Put: {
          TableName: context.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      start,
    );
    return { status: 'added', schedule };
  } catch (error) {
    const old = refusedItem(error);
    if (!old || sameItem(old, item)) return { status: 'added', schedule }; // our own earlier try succeeded
    if (input.conflictPolicy === 'exception') throw new ConflictingIdError('schedule', definition.id);
    return { status: 'kept', schedule: itemToSchedule(old) };
  }
}

/** Overwrites the definition and position; keeps `createdAt`, `startedRuns` and `lastStartedFireAt` (an upsert). */
async function replaceSchedule(context: StoreContext, input: AddScheduleInput): Promise<AddScheduleOutcome> {
  const { schedule: definition, now, start } = input;
  const update = new Expressions();
  const attributes = definitionAttributes(definition);
  for (const [attribute, value] of Object.entries(attributes)) update.set(attribute, value);
  const absent = OPTIONAL_DEFINITION_ATTRIBUTES.filter((attribute) => !(attribute in attributes));
  if (absent.length > 0) update.remove(...absent);
  update
    .set('kind', ITEM_KINDS.schedule)
    .set('paused', definition.paused)
    .set('updatedAt', now)
    .set('firesFrom', now)
    .setExpression('createdAt', `if_not_exists(${update.name('createdAt')}, ${update.value(now)})`)
    .setExpression(
      'version',
      `if_not_exists(${update.name('version')}, ${update.value(0)}) + ${update.value(1)}`,
    );
  setPosition(update, input.position, start?.chain ?? null);
  if (input.startedRuns !== undefined) update.setOrRemove('startedRuns', input.startedRuns || null);
  const schedule = await updateWithChain(context, 'addSchedule', definition.id, update.buildUpdate(), start);
  return { status: schedule.version === 1 ? 'added' : 'replaced', schedule };
}

export async function updateSchedule(context: StoreContext, input: UpdateScheduleInput): Promise<Schedule> {
  const { id, changes, now, expectedVersion, restart } = input;
  const update = new Expressions();
  for (const [attribute, value] of Object.entries(changes)) {
    if (value !== undefined) update.setOrRemove(attribute, value);
  }
  update.set('updatedAt', now).setExpression('version', `${update.name('version')} + ${update.value(1)}`);
  if (changes.trigger !== undefined || restart) update.set('firesFrom', now);
  if (restart) setPosition(update, restart.position, restart.start?.chain);
  if (restart?.startedRuns !== undefined) update.setOrRemove('startedRuns', restart.startedRuns || null);
  const condition = `attribute_exists(pk) AND ${update.name('version')} = ${update.value(expectedVersion)}`;
  try {
    return await updateWithChain(
      context,
      'updateSchedule',
      id,
      update.buildUpdate(condition),
      restart?.start ?? input.closing,
    );
  } catch (error) {
    const old = refusedItem(error);
    if (!old) throw new ScheduleNotFoundError(id);
    const ourEarlierTry = old.version === expectedVersion + 1 && old.updatedAt === now;
    if (ourEarlierTry) return itemToSchedule(old);
    throw new VersionConflictError(id, expectedVersion);
  }
}

export async function pauseSchedule(context: StoreContext, input: PauseScheduleInput): Promise<Schedule> {
  const { id, now, seenVersion } = input;
  const update = new Expressions().set('paused', true).set('updatedAt', now).set('firesFrom', now);
  update.setExpression('version', `${update.name('version')} + ${update.value(1)}`);
  setPosition(update, input.position, null);
  const condition =
    `attribute_exists(pk) AND ${update.name('paused')} = ${update.value(false)}` +
    ` AND ${update.name('version')} = ${update.value(seenVersion)}`;
  try {
    const output = await context.update('pauseSchedule', {
      Key: scheduleKey(id),
      ...update.buildUpdate(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToSchedule(output.Attributes ?? {});
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old) throw new ScheduleNotFoundError(id);
    // Paused already (by this call's earlier try, or another): pausing is idempotent.
    if (old.paused === true) return itemToSchedule(old);
    throw new ScheduleMovedError(id, seenVersion);
  }
}

export async function resumeSchedule(context: StoreContext, input: ResumeScheduleInput): Promise<Schedule> {
  const { id, now, start } = input;
  const update = new Expressions()
    .set('paused', false)
    .set('updatedAt', now)
    .set('firesFrom', input.firesFrom);
  update.setExpression('version', `${update.name('version')} + ${update.value(1)}`);
  setPosition(update, input.position, start?.chain ?? null);
  const condition = `attribute_exists(pk) AND ${update.name('paused')} = ${update.value(true)}`;
  try {
    return await updateWithChain(context, 'resumeSchedule', id, update.buildUpdate(condition), start);
  } catch (error) {
    const old = refusedItem(error);
    if (!old) throw new ScheduleNotFoundError(id);
    return itemToSchedule(old); // active already: resuming is idempotent
  }
}

/**
 * Finishes an active schedule whose chain ended, keeping the chain (its last note still stands for the
 * fires it sends after this write). 1 WRU: the item is in no index a finish moves.
 */
export async function finishSchedule(
  context: StoreContext,
  input: FinishScheduleInput,
): Promise<FinishOutcome> {
  const update = new Expressions().remove('nextFireAt');
  update.setOrRemove('lastFireAt', input.lastFireAt);
  update.setOrRemove('runs', input.runs > 0 ? input.runs : null);
  const condition =
    `${update.name('chain')} = ${update.value(input.chain)}` +
    ` AND ${update.name('paused')} = ${update.value(false)}` +
    ` AND attribute_exists(${update.name('nextFireAt')})`;
  try {
    await context.update('finishSchedule', {
      Key: scheduleKey(input.id),
      ...update.buildUpdate(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return 'finished';
  } catch (error) {
    const { old } = conditionFailure(error);
    // Finished by an earlier try of this write (its answer was lost) and nothing since.
    const ours =
      old !== undefined &&
      old.chain === input.chain &&
      old.paused !== true &&
      old.nextFireAt === undefined &&
      (old.lastFireAt ?? null) === input.lastFireAt;
    return ours ? 'finished' : 'moved';
  }
}

export async function removeSchedule(context: StoreContext, id: string): Promise<boolean> {
  // The owner's removal cancels every fire still queued, those of a revision cleaned up before too
  // (ADR 0004 §4): the record goes first, so a failure leaves the schedule and the call can be retried.
  await context.delete('removeSchedule', { Key: removedScheduleKey(id) });
  const output = await context.delete('removeSchedule', { Key: scheduleKey(id), ReturnValues: 'ALL_OLD' });
  return output.Attributes !== undefined;
}

export async function getSchedule(context: StoreContext, id: string): Promise<Schedule | undefined> {
  const output = await context.get('getSchedule', { Key: scheduleKey(id), ConsistentRead: true });
  return output.Item ? itemToSchedule(output.Item) : undefined;
}

/** Writes the position (removing what is absent) and the chain (`undefined`: the chain it has stays). */
function setPosition(
  update: Expressions,
  position: SchedulePosition,
  chain: string | null | undefined,
): void {
  const attributes = positionAttributes({ ...position, chain: chain ?? null });
  for (const attribute of POSITION_ATTRIBUTES) {
    if (attribute === 'chain' && chain === undefined) continue;
    update.setOrRemove(attribute, attributes[attribute]);
  }
}

/**
 * An update of the schedule item, alone, or with its chain's first note in one transaction (which
 * returns no item: the schedule is read again, strongly consistent).
 */
async function updateWithChain(
  context: StoreContext,
  operation: string,
  id: string,
  update: ReturnType<Expressions['buildUpdate']>,
  start: ChainStart | undefined,
): Promise<Schedule> {
  if (!start) {
    const output = await context.update(operation, {
      Key: scheduleKey(id),
      ...update,
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToSchedule(output.Attributes ?? {});
  }
  await writeWithChain(
    context,
    operation,
    {
      Update: {
        TableName: context.tableName,
        Key: scheduleKey(id),
        ...update,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    start,
  );
  const written = await getSchedule(context, id);
  if (!written) throw new ScheduleNotFoundError(id);
  return written;
}

/** The schedule's write, and with a chain start its first note too, in one transaction. */
async function writeWithChain(
  context: StoreContext,
  operation: string,
  write: TransactItem,
  start: ChainStart | undefined,
): Promise<void> {
  if (!start) {
    if (write.Put) await context.put(operation, write.Put);
    else if (write.Update) await context.update(operation, write.Update);
    return;
  }
  const note = firstNoteItem(context, start);
  await context.transact(operation, {
    TransactItems: [
      write,
      {
        Put: {
          TableName: context.tableName,
          Item: note,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  });
}

/**
 * The schedule item a write's condition refused (a single write's, or the schedule's part of a
 * transaction); undefined when there was none. Rethrows anything else.
 */
function refusedItem(error: unknown): StoredItem | undefined {
  if (error instanceof Error && error.name === 'TransactionCanceledException') {
    const [schedule] = transactionCancellation(error);
    if (schedule?.code !== 'ConditionalCheckFailed') throw error;
    return schedule.old;
  }
  return conditionFailure(error).old;
}
