import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import type { Page, PageRequest } from '../../core/model/page';
import type { JobFilter } from '../../core/ports/job-store';
import { jobListing } from '../page-cursor';
import {
  keyOfItem,
  type ListingPosition,
  type ListingSource,
  mergedJobPage,
  partitionUpTo,
  runAtIndexSource,
} from './merged-job-listing';
import type { StoreContext } from './store-context';
import {
  FIRE_JOB_PREFIX,
  fireJobSortKey,
  fireTimeOfSortKey,
  INDEX_NAMES,
  jobIdFromKey,
} from './table-design';

/**
 * The jobs of a schedule, latest first: its fires' jobs from its own partition (by fire time: no index
 * is written for them, ADR 0001) merged with the `jobs-by-schedule` index (its run-now jobs, by run
 * time).
 */
export function listScheduleJobs(
  context: StoreContext,
  filter: JobFilter & { scheduleId: string },
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
      firesOf(filter.scheduleId, position),
      runAtIndexSource(INDEX_NAMES.jobsBySchedule, 'scheduleId', filter.scheduleId, position),
    ],
  });
}

function firesOf(scheduleId: string, position: ListingPosition | undefined): ListingSource {
  return {
    query: partitionUpTo(`${FIRE_JOB_PREFIX}${scheduleId}`, position && fireJobSortKey(position.t)),
    entriesOf: (item) => {
      const key = keyOfItem(item);
      return [{ time: fireTimeOfSortKey(key.sk), id: jobIdFromKey(key), key, item }];
    },
    floorAfter: (item) => fireTimeOfSortKey(String(item.sk)),
  };
}
