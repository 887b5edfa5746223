import type { EpochMs } from '../../core/clock';
import type { Schedule } from '../../core/model/schedule';
import {
  type FinishedScheduleRemoval,
  keepsRemovedSchedule,
  removalRecordExpiresAt,
} from '../../core/ports/finished-schedule-removal';
import { Expressions } from './expressions';
import { itemToSchedule } from './schedule-items';
import { type StoreContext, type StoredItem, transactionCancellation } from './store-context';
import { removedScheduleKey, scheduleKey, TTL_ATTRIBUTE, ttlSeconds } from './table-design';

/**
 * Deletes the schedule only while it is finished, not kept, at `lastFireAt` and `version` (see the port),
 * and puts its removal record in the same transaction. The schedule is read first (strongly consistent)
 * for the record's revision and the answer; the delete's condition also names its `createdAt`, so a
 * schedule removed and added again in between is not taken for it.
 */
export async function removeFinishedSchedule(
  context: StoreContext,
  id: string,
  lastFireAt: EpochMs | null,
  version: number,
  now: EpochMs,
): Promise<Schedule | undefined> {
  const read = await context.get('removeFinishedSchedule', { Key: scheduleKey(id), ConsistentRead: true });
  if (!read.Item) return undefined;
  const schedule = itemToSchedule(read.Item);
  const names = new Expressions();
  const condition = [
    `${names.name('paused')} = ${names.value(false)}`,
    `attribute_not_exists(${names.name('nextFireAt')})`,
    `(attribute_not_exists(${names.name('keepFinished')}) OR ${names.name('keepFinished')} = ${names.value(false)})`,
    `${names.name('version')} = ${names.value(version)}`,
    `${names.name('createdAt')} = ${names.value(schedule.createdAt)}`,
    lastFireAt === null
      ? `attribute_not_exists(${names.name('lastFireAt')})`
      : `${names.name('lastFireAt')} = ${names.value(lastFireAt)}`,
  ].join(' AND ');
  const record = {
    ...removedScheduleKey(id),
    scheduleId: id,
    createdAt: schedule.createdAt,
    version,
    ...(lastFireAt === null ? {} : { lastFireAt }),
    ...(keepsRemovedSchedule(schedule) && { removed: removedScheduleAttributes(read.Item) }),
    [TTL_ATTRIBUTE]: ttlSeconds(removalRecordExpiresAt(now)),
  };
  try {
    await context.transact('removeFinishedSchedule', {
      TransactItems: [
        { Delete: { TableName: context.tableName, Key: scheduleKey(id), ...names.build(condition) } },
        { Put: { TableName: context.tableName, Item: record } },
      ],
    });
  } catch (error) {
    transactionCancellation(error);
    return undefined;
  }
  return schedule;
}

/**
 * The schedule's attributes kept in its removal record: nested, and without its key and kind, so that
 * the record is never taken for a schedule by the table's indexes.
 */
function removedScheduleAttributes(item: StoredItem): StoredItem {
  const { pk: _pk, sk: _sk, kind: _kind, ...attributes } = item;
  return attributes;
}

export async function getFinishedScheduleRemoval(
  context: StoreContext,
  id: string,
): Promise<FinishedScheduleRemoval | undefined> {
  const output = await context.get('getFinishedScheduleRemoval', {
    Key: removedScheduleKey(id),
    ConsistentRead: true,
  });
  const item = output.Item;
  if (!item) return undefined;
  return {
    scheduleId: id,
    revision: { createdAt: Number(item.createdAt), version: Number(item.version) },
    lastFireAt: item.lastFireAt === undefined ? null : Number(item.lastFireAt),
    ...(item.removed !== undefined && {
      schedule: itemToSchedule({ ...(item.removed as StoredItem), ...scheduleKey(id) }),
    }),
    expiresAt: Number(item[TTL_ATTRIBUTE]) * 1000,
  };
}
