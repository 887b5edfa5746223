import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import type { Page, PageRequest } from '../../core/model/page';
import type { JobFilter } from '../../core/ports/job-store';
import { jobListing } from '../page-cursor';
import {
  bucketOfLogItem,
  FIRE_LOG_BUCKET_MS,
  fireLogPartition,
  fireLogSortKeyUpTo,
  firesOfLogItem,
} from './fire-log';
import { keyOfItem, type ListingPosition, type ListingSource, mergedJobPage } from './merged-job-listing';
import type { StoreContext } from './store-context';
import { INDEX_NAMES, jobIdFromKey, jobKey } from './table-design';

/**
 * The jobs of a task, latest first: its fires' jobs from the task's fire log (by fire time: no index
 * entry is written for them, ADR 0001) merged with the `jobs-by-task` index (every other job, and fires
 * that were retried or outlive their log entry, by run time). A log entry stands only for a job without
 * an index entry, so no job is listed twice; one whose job is not written yet (sent, not yet claimed) or
 * runs as another task now (its schedule's task changed) is skipped.
 */
export function listTaskJobs(
  context: StoreContext,
  filter: JobFilter & { task: string },
  page: PageRequest,
  now: EpochMs,
  matches: (job: Job) => boolean,
): Promise<Page<Job>> {
  return mergedJobPage(context, {
    listing: jobListing(filter),
    page,
    now,
    matches,
    sources: (position) => [loggedFiresOf(filter.task, position), indexedOf(filter.task, position)],
  });
}

function loggedFiresOf(task: string, position: ListingPosition | undefined): ListingSource {
  return {
    query: {
      KeyConditionExpression: position ? '#pk = :pk AND #sk <= :sk' : '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', ...(position && { '#sk': 'sk' }) },
      ExpressionAttributeValues: {
        ':pk': fireLogPartition(task),
        ...(position && { ':sk': fireLogSortKeyUpTo(position.t) }),
      },
    },
    entriesOf: (item) =>
      firesOfLogItem(item).map(({ scheduleId, fireTime }) => {
        const id = `${scheduleId}@${fireTime}`;
        return { time: fireTime, id, key: jobKey(id), accepts: (job) => job.runAt === undefined };
      }),
    // Later items of the same minute may hold any time in it.
    floorAfter: (item) => bucketOfLogItem(item) + FIRE_LOG_BUCKET_MS - 1,
  };
}

function indexedOf(task: string, position: ListingPosition | undefined): ListingSource {
  return {
    query: {
      IndexName: INDEX_NAMES.jobsByTask,
      KeyConditionExpression: position ? '#task = :task AND #runAt <= :t' : '#task = :task',
      ExpressionAttributeNames: { '#task': 'task', ...(position && { '#runAt': 'runAt' }) },
      ExpressionAttributeValues: { ':task': task, ...(position && { ':t': position.t }) },
    },
    entriesOf: (entry) => {
      const key = keyOfItem(entry);
      return [{ time: Number(entry.runAt), id: jobIdFromKey(key), key }];
    },
    floorAfter: (entry) => Number(entry.runAt),
  };
}
