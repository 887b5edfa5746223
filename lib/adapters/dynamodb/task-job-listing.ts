import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { scheduleJobId } from '../../core/model/job-id';
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
import {
  type ListingPosition,
  type ListingSource,
  mergedJobPage,
  partitionUpTo,
  runAtIndexSource,
} from './merged-job-listing';
import type { StoreContext } from './store-context';
import { INDEX_NAMES, jobKey } from './table-design';

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
    sources: (position) => [
      loggedFiresOf(filter.task, position),
      runAtIndexSource(INDEX_NAMES.jobsByTask, 'task', filter.task, position),
    ],
  });
}

function loggedFiresOf(task: string, position: ListingPosition | undefined): ListingSource {
  return {
    query: partitionUpTo(fireLogPartition(task), position && fireLogSortKeyUpTo(position.t)),
    entriesOf: (item) =>
      firesOfLogItem(item).map(({ scheduleId, fireTime }) => {
        const id = scheduleJobId(scheduleId, fireTime);
        return { time: fireTime, id, key: jobKey(id), accepts: (job) => job.runAt === undefined };
      }),
    // Later items of the same minute may hold any time in it.
    floorAfter: (item) => bucketOfLogItem(item) + FIRE_LOG_BUCKET_MS - 1,
  };
}
