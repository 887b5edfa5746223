import { matchesMetadata } from '../../core/model/metadata';
import type { Page, PageRequest } from '../../core/model/page';
import type { Schedule } from '../../core/model/schedule';
import type { ScheduleFilter } from '../../core/ports/schedule-store';
import { scheduleListing } from '../page-cursor';
import { Expressions } from './expressions';
import { equalTo, keyWithPrefix, readIndexPage } from './index-pages';
import { itemToSchedule, scheduleKeyOf } from './schedule-items';
import type { StoreContext } from './store-context';
import { INDEX_NAMES, ITEM_KINDS, itemKeyString, SCHEDULE_PREFIX } from './table-design';

/** Schedules in id order from the `by-kind` index (filters run on its projected attributes), then read whole. */
export function listSchedules(
  context: StoreContext,
  filter: ScheduleFilter,
  page: PageRequest,
): Promise<Page<Schedule>> {
  const expressions = new Expressions();
  const keyCondition = `${expressions.name('kind')} = ${expressions.value(ITEM_KINDS.schedule)}`;
  const filters: string[] = [];
  if (filter.task !== undefined)
    filters.push(`${expressions.name('task')} = ${expressions.value(filter.task)}`);
  if (filter.tag !== undefined)
    filters.push(`contains(${expressions.name('tags')}, ${expressions.value(filter.tag)})`);
  if (filter.paused !== undefined) {
    filters.push(`${expressions.name('paused')} = ${expressions.value(filter.paused)}`);
  }
  const { ExpressionAttributeNames, ExpressionAttributeValues } = expressions.build();
  return readIndexPage(context, {
    operation: 'listSchedules',
    query: {
      IndexName: INDEX_NAMES.byKind,
      KeyConditionExpression: keyCondition,
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ExpressionAttributeNames,
      ExpressionAttributeValues,
    },
    cursorKey: {
      kind: equalTo(ITEM_KINDS.schedule),
      pk: keyWithPrefix(SCHEDULE_PREFIX),
      sk: equalTo('SCHEDULE'),
    },
    listing: scheduleListing(filter),
    page,
    resolve: async (entries) => {
      const found = await context.batchGet('listSchedules', entries.map(scheduleKeyOf));
      return entries.map((entry) => {
        const item = found.get(itemKeyString(scheduleKeyOf(entry)));
        const schedule = item ? itemToSchedule(item) : undefined;
        // Metadata is not projected into the index: it is filtered once the items are read.
        return schedule && matchesMetadata(schedule.metadata, filter.metadata) ? schedule : undefined;
      });
    },
  });
}
