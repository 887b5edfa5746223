import type { EpochMs } from '../../core/clock';
import {
  ConflictingIdError,
  ScheduleMovedError,
  ScheduleNotFoundError,
  VersionConflictError,
} from '../../core/errors';
import type { Schedule, ScheduleChanges } from '../../core/model/schedule';
import type {
  AddScheduleInput,
  AddScheduleOutcome,
  FiresTakenBack,
  NotedState,
} from '../../core/ports/schedule-store';
import { Expressions } from './expressions';
import { sameItem } from './item-equality';
import { notedClauses, notesMoved } from './noted-writes';
import { movedSince } from './runs-take-back';
import {
  definitionAttributes,
  dueShardOf,
  isActive,
  itemToSchedule,
  OPTIONAL_DEFINITION_ATTRIBUTES,
  scheduleToItem,
} from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { ITEM_KINDS, removedScheduleKey, scheduleKey } from './table-design';

export async function addSchedule(
  context: StoreContext,
  input: AddScheduleInput,
): Promise<AddScheduleOutcome> {
  const { schedule: definition, nextFireAt, now } = input;
  if (input.conflictPolicy === 'replace') return replaceSchedule(context, input);
  const schedule: Schedule = {
    ...definition,
    nextFireAt,
    lastFireAt: null,
    runs: 0,
    firesFrom: now,
    version: 1,
    createdAt: now,
    updatedAt: now,
    leaseOwner: null,
    leaseUntil: null,
  };
  const item = scheduleToItem(schedule, context.shards);
  try {
    await context.put('addSchedule', {
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return { status: 'added', schedule };
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old || sameItem(old, item)) return { status: 'added', schedule }; // our own earlier try succeeded
    if (input.conflictPolicy === 'exception') throw new ConflictingIdError('schedule', definition.id);
    return { status: 'kept', schedule: itemToSchedule(old) };
  }
}

/** Overwrites the definition and next fire time; keeps `createdAt`, `lastFireAt` and any lease (whose release is then superseded). */
async function replaceSchedule(context: StoreContext, input: AddScheduleInput): Promise<AddScheduleOutcome> {
  const { schedule: definition, nextFireAt, now } = input;
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
  setDueKeys(update, definition.id, definition.paused, nextFireAt, context.shards);
  const { takeBack, noted } = input;
  const clauses = notedClauses(update, noted, takeBack);
  // Without a take-back or a note to carry it is an upsert (an absent item is not on notes).
  if (takeBack || noted) clauses.unshift('attribute_exists(pk)');
  try {
    const output = await context.update('addSchedule', {
      Key: scheduleKey(definition.id),
      ...update.build(clauses.join(' AND ')),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    const schedule = itemToSchedule(output.Attributes ?? {});
    return { status: schedule.version === 1 ? 'added' : 'replaced', schedule };
  } catch (error) {
    const { old } = conditionFailure(error);
    const seenVersion = noted?.seenVersion ?? takeBack?.seenVersion;
    const ourEarlierTry =
      seenVersion !== undefined && old?.version === seenVersion + 1 && old.updatedAt === now;
    if (old && ourEarlierTry) return { status: 'replaced', schedule: itemToSchedule(old) };
    if (!takeBack && !noted && !(old && notesMoved(old, undefined))) throw error;
    throw new ScheduleMovedError(definition.id, seenVersion ?? Number(old?.version));
  }
}

export async function updateSchedule(
  context: StoreContext,
  id: string,
  changes: ScheduleChanges,
  nextFireAt: EpochMs | null,
  now: EpochMs,
  expectedVersion?: number,
  takeBack?: FiresTakenBack,
  noted?: NotedState,
): Promise<Schedule> {
  // Whether the schedule belongs in the due index depends on its stored `paused`: guess "not paused"
  // (the common case) and make the guess part of the condition; a failed guess is corrected once.
  let paused = false;
  for (let round = 0; round < 3; round++) {
    const update = new Expressions();
    for (const [attribute, value] of Object.entries(changes)) {
      if (value !== undefined) update.setOrRemove(attribute, value);
    }
    update.set('updatedAt', now).setExpression('version', `${update.name('version')} + ${update.value(1)}`);
    if (changes.trigger !== undefined) update.set('firesFrom', now);
    setDueKeys(update, id, paused, nextFireAt, context.shards);
    let condition = `attribute_exists(pk) AND ${update.name('paused')} = ${update.value(paused)}`;
    if (expectedVersion !== undefined)
      condition += ` AND ${update.name('version')} = ${update.value(expectedVersion)}`;
    for (const clause of notedClauses(update, noted, takeBack)) condition += ` AND ${clause}`;
    try {
      const output = await context.update('updateSchedule', {
        Key: scheduleKey(id),
        ...update.build(condition),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return itemToSchedule(output.Attributes ?? {});
    } catch (error) {
      const { old } = conditionFailure(error);
      if (!old) throw new ScheduleNotFoundError(id);
      if (expectedVersion !== undefined && old.version !== expectedVersion) {
        const ourEarlierTry = old.version === expectedVersion + 1 && old.updatedAt === now;
        if (ourEarlierTry) return itemToSchedule(old);
        throw new VersionConflictError(id, expectedVersion);
      }
      if (noted && old.version === noted.seenVersion + 1 && old.updatedAt === now) return itemToSchedule(old);
      if (notesMoved(old, noted)) throw new ScheduleMovedError(id, noted?.seenVersion ?? Number(old.version));
      if (takeBack && !noted && (old.version !== takeBack.seenVersion || movedSince(old, takeBack))) {
        throw new ScheduleMovedError(id, takeBack.seenVersion);
      }
      paused = old.paused === true;
    }
  }
  throw new VersionConflictError(id, expectedVersion ?? -1);
}

export async function pauseSchedule(
  context: StoreContext,
  id: string,
  now: EpochMs,
  takeBack?: FiresTakenBack,
  noted?: NotedState,
): Promise<Schedule> {
  const update = new Expressions()
    .set('paused', true)
    .set('updatedAt', now)
    .set('firesFrom', now)
    .remove('dueShard');
  update.setExpression('version', `${update.name('version')} + ${update.value(1)}`);
  // Paused from its live note: it keeps the note's next fire time (the one it shows while paused).
  if (noted) update.set('dueAt', noted.nextFireAt);
  let condition = `attribute_exists(pk) AND ${update.name('paused')} = ${update.value(false)}`;
  for (const clause of notedClauses(update, noted, takeBack)) condition += ` AND ${clause}`;
  return changePausedState(context, id, update, condition, takeBack !== undefined || noted !== undefined);
}

export async function resumeSchedule(
  context: StoreContext,
  id: string,
  nextFireAt: EpochMs | null,
  now: EpochMs,
  firesFrom: EpochMs = now,
): Promise<Schedule> {
  const update = new Expressions().set('paused', false).set('updatedAt', now).set('firesFrom', firesFrom);
  update.setExpression('version', `${update.name('version')} + ${update.value(1)}`);
  setDueKeys(update, id, false, nextFireAt, context.shards);
  const condition = `attribute_exists(pk) AND ${update.name('paused')} = ${update.value(true)}`;
  return changePausedState(context, id, update, condition);
}

/** Pause and resume are idempotent: when the schedule is in the wanted state already, nothing changes. */
async function changePausedState(
  context: StoreContext,
  id: string,
  update: Expressions,
  condition: string,
  pinned = false,
): Promise<Schedule> {
  try {
    const output = await context.update('changePausedState', {
      Key: scheduleKey(id),
      ...update.build(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToSchedule(output.Attributes ?? {});
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old) throw new ScheduleNotFoundError(id);
    // Not yet paused, but not as read either: what to take back, or the note to carry, changed (or it
    // was converted to due notes since it was read).
    if (old.paused !== true && (pinned || notesMoved(old, undefined))) {
      throw new ScheduleMovedError(id, Number(old.version));
    }
    return itemToSchedule(old);
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

/** Puts the schedule in the due index when active (`dueShard` + `dueAt`), takes it out otherwise. */
export function setDueKeys(
  update: Expressions,
  id: string,
  paused: boolean,
  nextFireAt: EpochMs | null,
  shards: number,
): void {
  update.setOrRemove('dueAt', nextFireAt);
  if (isActive(paused, nextFireAt)) update.set('dueShard', dueShardOf(id, shards));
  else update.remove('dueShard');
}
