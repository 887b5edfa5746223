import type { Schedule } from '../../core/model/schedule';
import type { FinishScheduleOnNotesInput } from '../../core/ports/due-notes';
import { Expressions } from './expressions';
import { leftOutOfIndex } from './note-conversion';
import { itemToSchedule } from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { itemKeyString, scheduleKey } from './table-design';

/**
 * Finishes a note-indexed schedule whose trigger ended (ADR 0007): one conditional update that writes
 * what its last plan dispatched and removes the `dueAt` its conversion kept. With `dueShard` already
 * absent, the item is then as the item-indexed path leaves a finished schedule (1 WRU: no index entry
 * moves).
 */
export async function finishScheduleOnNotes(
  context: StoreContext,
  input: FinishScheduleOnNotesInput,
): Promise<boolean> {
  const update = new Expressions();
  update.remove('dueAt');
  update.setOrRemove('runs', input.runs > 0 ? input.runs : null);
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  const paused = update.name('paused');
  const condition =
    // On notes: out of the due index with its `dueAt` kept (a paused item is out of it too: below).
    `attribute_exists(${update.name('dueAt')})` +
    ` AND attribute_not_exists(${update.name('dueShard')})` +
    ` AND (attribute_not_exists(${paused}) OR ${paused} = ${update.value(false)})` +
    ` AND ${update.name('version')} = ${update.value(input.seenVersion)}` +
    ` AND ${update.name('createdAt')} = ${update.value(input.seenCreatedAt)}`;
  try {
    await context.update('finishScheduleOnNotes', {
      Key: scheduleKey(input.id),
      ...update.buildUpdate(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    const { old } = conditionFailure(error);
    // Already as this write leaves it: an earlier try of it applied (its answer was lost).
    return old !== undefined && old.dueAt === undefined && leftOutOfIndex(old, input);
  }
}

/** Schedules by id, strongly consistent, in BatchGet requests of 100 keys; absent ids are left out. */
export async function readSchedules(
  context: StoreContext,
  ids: readonly string[],
): Promise<Map<string, Schedule>> {
  const items = await context.batchGet('readSchedules', ids.map(scheduleKey));
  const found = new Map<string, Schedule>();
  for (const id of ids) {
    const item = items.get(itemKeyString(scheduleKey(id)));
    if (item) found.set(id, itemToSchedule(item));
  }
  return found;
}
