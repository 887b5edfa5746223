import type { ConvertScheduleToNotesInput } from '../../core/ports/due-notes';
import { Expressions } from './expressions';
import { unchangedSinceRead } from './schedule-advances';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { scheduleKey } from './table-design';

/**
 * Hands an item-indexed schedule over to notes (ADR 0007): one conditional update that takes it out of
 * the due index (`REMOVE dueAt, dueShard`: the item and the index delete, 2 WRU, once per admin change)
 * and writes what its first advance dispatched. Its next fire time lives in its note from then on.
 */
export async function convertScheduleToNotes(
  context: StoreContext,
  input: ConvertScheduleToNotesInput,
): Promise<boolean> {
  const update = new Expressions();
  update.remove('dueAt', 'dueShard');
  update.set('onNotes', true);
  update.setOrRemove('runs', input.runs > 0 ? input.runs : null);
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  // `dueShard` is absent from a paused item, which keeps its `dueAt`.
  const condition = `${unchangedSinceRead(update, input)} AND attribute_exists(${update.name('dueShard')})`;
  try {
    await context.update('convertScheduleToNotes', {
      Key: scheduleKey(input.id),
      ...update.buildUpdate(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    const { old } = conditionFailure(error);
    // Already as this write leaves it: an earlier try of it applied (its answer was lost).
    return (
      old !== undefined &&
      old.dueAt === undefined &&
      old.version === input.seenVersion &&
      old.createdAt === input.seenCreatedAt &&
      Number(old.runs ?? 0) === input.runs &&
      (input.lastFireAt === null || optionalNumber(old.lastFireAt) === input.lastFireAt)
    );
  }
}
