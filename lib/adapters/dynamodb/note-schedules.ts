import type { Schedule } from '../../core/model/schedule';
import { itemToSchedule } from './schedule-items';
import type { StoreContext } from './store-context';
import { itemKeyString, scheduleKey } from './table-design';

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
