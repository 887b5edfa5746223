import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { matchesMetadata } from '../../core/model/metadata';
import type { Page, PageRequest } from '../../core/model/page';
import { checkJobFilter, type JobFilter } from '../../core/ports/job-store';
import { jobListing } from '../page-cursor';
import { epochMs, equalTo, keyWithPrefix, readIndexPage } from './index-pages';
import { isExpired, itemToJob } from './job-items';
import { listScheduleJobs } from './schedule-job-listing';
import type { StoreContext } from './store-context';
import {
  FIRE_JOB_PREFIX,
  INDEX_NAMES,
  type ItemKey,
  itemKeyString,
  JOB_PREFIX,
  jobKey,
  shardKeys,
} from './table-design';
import { listTaskJobs } from './task-job-listing';

export async function getJob(context: StoreContext, id: string, now: EpochMs): Promise<Job | undefined> {
  const output = await context.get('getJob', { Key: jobKey(id), ConsistentRead: true });
  return output.Item && !isExpired(output.Item, now) ? itemToJob(output.Item) : undefined;
}

export async function getJobRecord(context: StoreContext, id: string): Promise<Job | undefined> {
  const output = await context.get('getJobRecord', { Key: jobKey(id), ConsistentRead: true });
  return output.Item && itemToJob(output.Item);
}

/**
 * Jobs of a schedule (`listScheduleJobs`), of a task (`listTaskJobs`) or of an unsuccessful status
 * (latest finish first) from a keys-only index; the items are then read (eventually consistent) and the
 * filters and expiry applied.
 */
export async function listJobs(
  context: StoreContext,
  filter: JobFilter,
  page: PageRequest,
  now: EpochMs,
): Promise<Page<Job>> {
  checkJobFilter(filter);
  const matches = (job: Job) =>
    (filter.status === undefined || job.status === filter.status) &&
    (filter.task === undefined || job.task === filter.task) &&
    matchesMetadata(job.metadata, filter.metadata);
  if (filter.scheduleId !== undefined) {
    return listScheduleJobs(context, { ...filter, scheduleId: filter.scheduleId }, page, now, matches);
  }
  if (filter.task !== undefined) {
    return listTaskJobs(context, { ...filter, task: filter.task }, page, now, matches);
  }
  const status = String(filter.status);
  return readIndexPage(context, {
    operation: 'listJobs',
    query: {
      IndexName: INDEX_NAMES.unsuccessfulJobs,
      ...keyCondition('unsuccessful', status, 'finishedAt', filter),
      ScanIndexForward: false,
    },
    cursorKey: {
      unsuccessful: equalTo(status),
      // A position outside the range would make DynamoDB refuse the query: not a cursor of this listing.
      finishedAt: (value) => epochMs(value) && inFinishRange(value as number, filter),
      pk: (value) => keyWithPrefix(JOB_PREFIX)(value) || keyWithPrefix(FIRE_JOB_PREFIX)(value),
      sk: (value) => value === 'JOB' || (typeof value === 'string' && /^JOB#\d{16}$/.test(value)),
    },
    listing: jobListing(filter),
    page,
    resolve: async (entries) => {
      const found = await context.batchGet('listJobs', entries.map(keyOf), false);
      return entries.map((entry) => {
        const item = found.get(itemKeyString(keyOf(entry)));
        if (!item || isExpired(item, now)) return undefined;
        const job = itemToJob(item);
        return matches(job) ? job : undefined;
      });
    },
  });
}

function inFinishRange(finishedAt: number, filter: JobFilter): boolean {
  return (
    finishedAt >= (filter.finishedFrom ?? 0) &&
    finishedAt < (filter.finishedBefore ?? Number.MAX_SAFE_INTEGER)
  );
}

/** The index partition, narrowed to the finish time range when the filter has one. */
function keyCondition(partition: string, value: string, sortAttribute: string, filter: JobFilter) {
  const names: Record<string, string> = { '#partition': partition };
  const values: Record<string, unknown> = { ':partition': value };
  let expression = '#partition = :partition';
  const from = filter.finishedFrom ?? 0;
  const before = filter.finishedBefore ?? Number.MAX_SAFE_INTEGER;
  if (filter.finishedFrom !== undefined || filter.finishedBefore !== undefined) {
    names['#sort'] = sortAttribute;
    values[':from'] = from;
    values[':last'] = before - 1;
    expression += ' AND #sort BETWEEN :from AND :last';
  }
  return {
    KeyConditionExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Running jobs whose lease ended before `now`, oldest lease first, read consistently. */
export async function findExpiredJobLeases(
  context: StoreContext,
  now: EpochMs,
  limit: number,
): Promise<Job[]> {
  const keys: ItemKey[] = [];
  await Promise.all(
    Array.from({ length: context.shards }, async (_, shard) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await context.query('findExpiredJobLeases', {
          IndexName: INDEX_NAMES.running,
          KeyConditionExpression: '#shard = :shard AND #leaseUntil < :now',
          ExpressionAttributeNames: { '#shard': 'runShard', '#leaseUntil': 'leaseUntil' },
          ExpressionAttributeValues: { ':shard': shardKeys.running(shard), ':now': now },
          Limit: Math.min(limit, 100),
          ExclusiveStartKey: startKey,
        });
        for (const item of page.Items ?? []) keys.push(keyOf(item));
        startKey = keys.length < limit ? page.LastEvaluatedKey : undefined;
      } while (startKey);
    }),
  );
  const found = await context.batchGet('findExpiredJobLeases', keys);
  return [...found.values()]
    .map(itemToJob)
    .filter((job) => job.status === 'running' && job.leaseUntil !== null && job.leaseUntil < now)
    .sort((a, b) => (a.leaseUntil ?? 0) - (b.leaseUntil ?? 0))
    .slice(0, limit);
}

function keyOf(entry: Record<string, unknown>): ItemKey {
  return { pk: String(entry.pk), sk: String(entry.sk) };
}
