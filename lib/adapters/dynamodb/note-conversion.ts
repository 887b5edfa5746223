import type { EpochMs } from '../../core/clock';
import type { ConvertScheduleToNotesInput } from '../../core/ports/due-notes';
import { Expressions } from './expressions';
import { unchangedSinceRead } from './schedule-advances';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { scheduleKey } from './table-design';

/**
 * Hands an item-indexed schedule over to notes (ADR 0007): one conditional update that takes it out of
 * the due index (`REMOVE dueShard`: the item and the index delete, 2 WRU, once per admin change) and
 * writes what its first advance dispatched. It keeps `dueAt` (the next fire time read), so it is not read
 * as finished: not paused, `dueAt` without `dueShard` reads as `onNotes`. Its current next fire time lives
 * in its note from then on.
 */
export async function convertScheduleToNotes(
  context: StoreContext,
  input: ConvertScheduleToNotesInput,
): Promise<boolean> {
  const update = new Expressions();
  update.remove('dueShard');
  update.setOrRemove('runs', input.runs > 0 ? input.runs : null);
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  // `dueShard` is absent from a paused item and from one converted already (the condition's own). A
  // schedule with `maxRuns` stays item-indexed (ADR 0007): its limit and the worker's check of a fire
  // against it (`lastFireAt`) need the item's fire times current.
  const condition = `${unchangedSinceRead(update, input)} AND attribute_not_exists(${update.name('maxRuns')})`;
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
      old !== undefined && leftOutOfIndex(old, input) && optionalNumber(old.dueAt) === input.seenNextFireAt
    );
  }
}

/**
 * Whether `old` is as a write of a schedule on notes (its conversion, its finish) leaves it: out of the
 * due index, not paused, at the version and creation read, with the `runs` and last fire written. A
 * failed condition that finds this is a retry whose earlier try applied.
 */
export function leftOutOfIndex(
  old: StoredItem,
  input: { seenVersion: number; seenCreatedAt: EpochMs; runs: number; lastFireAt: EpochMs | null },
): boolean {
  return (
    old.dueShard === undefined &&
    old.paused !== true &&
    old.version === input.seenVersion &&
    old.createdAt === input.seenCreatedAt &&
    Number(old.runs ?? 0) === input.runs &&
    (input.lastFireAt === null || optionalNumber(old.lastFireAt) === input.lastFireAt)
  );
}
