import type { Schedule } from '../../core/model/schedule';
import type {
  AdvanceOutcome,
  AdvanceScheduleInput,
  ReadDueSchedulesInput,
} from '../../core/ports/schedule-store';
import { leaseDueItems } from './due-index';
import { Expressions } from './expressions';
import { itemToSchedule, optionalNumber } from './schedule-items';
import { addRuns } from './schedule-leases';
import { setDueKeys } from './schedule-writes';
import { conditionFailure, type StoreContext } from './store-context';
import { idFromPartitionKey, SCHEDULE_PREFIX, scheduleKey, shardKeys } from './table-design';

/**
 * The lease-less tick's read (ADR 0005): the due index's pages, then the items strongly consistent
 * (the advance's condition is checked against what was read), skipping live leases and `skip` (left
 * out before the items are read).
 */
export async function readDueSchedules(
  context: StoreContext,
  input: ReadDueSchedulesInput,
): Promise<Schedule[]> {
  const skip = input.skip;
  const read = await leaseDueItems(context, {
    operation: 'readDueSchedules',
    shardKey: shardKeys.dueSchedule,
    now: input.now,
    dueBefore: input.dueBefore,
    limit: input.limit,
    consistentRead: true,
    ...(skip && { skipKey: (key) => skip.has(idFromPartitionKey(key.pk, SCHEDULE_PREFIX)) }),
    ...(input.shards && { shards: input.shards }),
    lease: async (hit) => itemToSchedule(hit.item),
  });
  return read.sort((a, b) => (a.nextFireAt ?? 0) - (b.nextFireAt ?? 0));
}

/**
 * Writes the next and last fire times in one conditional update: next fire time, version and creation
 * time as read, and no live lease (a tick on the leased path owns the schedule until it releases it).
 */
export async function advanceSchedule(
  context: StoreContext,
  input: AdvanceScheduleInput,
): Promise<AdvanceOutcome> {
  const update = new Expressions();
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  addRuns(update, input.firesDispatched);
  // The version is unchanged, so the schedule is still not paused (pausing bumps the version).
  setDueKeys(update, input.id, false, input.nextFireAt, context.shards);
  try {
    await context.update('advanceSchedule', {
      Key: scheduleKey(input.id),
      ...update.build(unchangedSinceRead(update, input)),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return 'advanced';
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old || Number(old.createdAt) !== input.seenCreatedAt) return 'gone';
    if (old.version !== input.seenVersion) return 'superseded';
    // Already where this write puts it: a retry of a write that had applied (its answer was lost).
    const ourEarlierTry =
      optionalNumber(old.dueAt) === input.nextFireAt && input.nextFireAt !== input.seenNextFireAt;
    return ourEarlierTry ? 'advanced' : 'lost';
  }
}

/**
 * The condition of a write planned from a schedule read without a lease: its next fire time, version
 * and creation time as read, still in the due index (a paused item, or one converted to due notes since,
 * keeps its `dueAt` without `dueShard`: ADR 0007), and no live lease (a tick on the leased path owns it
 * until it releases it).
 */
export function unchangedSinceRead(
  update: Expressions,
  seen: Pick<AdvanceScheduleInput, 'seenNextFireAt' | 'seenVersion' | 'seenCreatedAt' | 'now'>,
): string {
  const lease = update.name('leaseUntil');
  return (
    `${update.name('dueAt')} = ${update.value(seen.seenNextFireAt)}` +
    ` AND ${update.name('version')} = ${update.value(seen.seenVersion)}` +
    ` AND ${update.name('createdAt')} = ${update.value(seen.seenCreatedAt)}` +
    ` AND attribute_exists(${update.name('dueShard')})` +
    ` AND (attribute_not_exists(${lease}) OR ${lease} < ${update.value(seen.now)})`
  );
}
