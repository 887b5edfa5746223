import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { MAX_JOB_ID_LENGTH } from '../../core/model/job-id';
import type { Page, PageRequest } from '../../core/model/page';
import type { JobFilter } from '../../core/ports/job-store';
import { decodeCursor, encodeCursor, exactRecord, jobListing } from '../page-cursor';
import { epochMs } from './index-pages';
import { isExpired, itemToJob } from './job-items';
import type { StoreContext, StoredItem } from './store-context';
import {
  FIRE_JOB_PREFIX,
  fireJobSortKey,
  fireTimeOfSortKey,
  INDEX_NAMES,
  type ItemKey,
  itemKeyString,
  jobIdFromKey,
} from './table-design';

/** A job in a schedule's listing: its place (listing time, then id) and its key; the item when read whole. */
interface Entry {
  time: number;
  id: string;
  key: ItemKey;
  item?: StoredItem;
}

/** Where a page ended: listing time and id of the last job looked at. */
interface Position {
  t: number;
  id: string;
}

const readPosition = exactRecord({
  t: epochMs,
  id: (value) => typeof value === 'string' && value.length <= MAX_JOB_ID_LENGTH,
});

/** Latest listing time first; the same time in id order (as the memory store). */
function before(a: Entry, b: Entry): number {
  return b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isAfter(entry: Entry, position: Position | undefined): boolean {
  return (
    position === undefined || entry.time < position.t || (entry.time === position.t && entry.id > position.id)
  );
}

/**
 * One sorted source of a listing, read a query page at a time. `floor` is the listing time down to which
 * it has been read: entries above it are all in `buffer`; entries at it may still follow (an index keeps
 * no order among equal sort keys), so they are taken only once the source is done or read past it.
 */
class Source {
  private startKey: Record<string, unknown> | undefined;
  private started = false;
  buffer: Entry[] = [];
  done = false;
  floor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly context: StoreContext,
    private readonly query: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>,
    private readonly toEntry: (item: StoredItem) => Entry,
    private readonly position: Position | undefined,
    private readonly pageSize: number,
  ) {}

  async readPage(): Promise<void> {
    if (this.done) return;
    const output = await this.context.query('listJobs', {
      ...this.query,
      Limit: this.pageSize,
      ScanIndexForward: false,
      ...(this.started && { ExclusiveStartKey: this.startKey }),
    });
    this.started = true;
    const entries = (output.Items ?? []).map(this.toEntry);
    this.buffer.push(...entries.filter((entry) => isAfter(entry, this.position)));
    this.buffer.sort(before);
    this.startKey = output.LastEvaluatedKey;
    this.done = this.startKey === undefined;
    const last = entries.at(-1);
    this.floor = this.done ? Number.NEGATIVE_INFINITY : (last?.time ?? this.floor);
  }
}

/**
 * The jobs of a schedule, latest first: its fires' jobs from its own partition (by fire time: no index
 * is written for them, ADR 0001) merged with the `jobs-by-schedule` index (run-now jobs, by run time,
 * and fire jobs written before the partition existed). The two sources are read a page at a time;
 * an entry is taken once no source can still hold one before it.
 */
export async function listScheduleJobs(
  context: StoreContext,
  filter: JobFilter & { scheduleId: string },
  page: PageRequest,
  now: EpochMs,
  matches: (job: Job) => boolean,
): Promise<Page<Job>> {
  const listing = jobListing(filter);
  const position = decodeCursor(page.cursor, listing, readPosition) as Position | undefined;
  const limit = Math.max(1, page.limit);
  const pageSize = Math.min(100, Math.max(10, 2 * limit));
  const fires = new Source(
    context,
    fireQuery(filter.scheduleId, position),
    (item) => {
      const key = keyOf(item);
      return { time: fireTimeOfSortKey(key.sk), id: jobIdFromKey(key), key, item };
    },
    position,
    pageSize,
  );
  const indexed = new Source(
    context,
    indexQuery(filter.scheduleId, position),
    (entry) => {
      const key = keyOf(entry);
      return { time: Number(entry.runAt), id: jobIdFromKey(key), key };
    },
    position,
    pageSize,
  );
  const sources = [fires, indexed];
  await Promise.all(sources.map((source) => source.readPage()));
  const jobs: Job[] = [];
  for (;;) {
    const floor = Math.max(...sources.map((source) => source.floor));
    const ready = sources
      .flatMap((source) => source.buffer)
      .filter((entry) => entry.time > floor)
      .sort(before);
    if (ready.length === 0) {
      const behind = sources.filter((source) => !source.done);
      if (behind.length === 0) return { items: jobs };
      // The source whose floor holds the others back reads on.
      const highest = behind.reduce((a, b) => (b.floor > a.floor ? b : a));
      await highest.readPage();
      continue;
    }
    const taken = ready.slice(0, limit - jobs.length);
    for (const source of sources) source.buffer = source.buffer.filter((entry) => !taken.includes(entry));
    const items = await itemsOf(context, taken);
    for (const [index, item] of items.entries()) {
      const job = item && !isExpired(item, now) ? itemToJob(item) : undefined;
      if (job && matches(job)) jobs.push(job);
      if (jobs.length === limit) {
        const last = taken[index] as Entry;
        const more =
          index < taken.length - 1 || sources.some((source) => !source.done || source.buffer.length > 0);
        return more
          ? { items: jobs, cursor: encodeCursor(listing, { t: last.time, id: last.id }) }
          : { items: jobs };
      }
    }
  }
}

/** The items of `entries`, index entries read whole (eventually consistent, as any listing). */
async function itemsOf(
  context: StoreContext,
  entries: readonly Entry[],
): Promise<(StoredItem | undefined)[]> {
  const missing = entries.filter((entry) => entry.item === undefined).map((entry) => entry.key);
  const found = missing.length > 0 ? await context.batchGet('listJobs', missing, false) : new Map();
  return entries.map((entry) => entry.item ?? found.get(itemKeyString(entry.key)));
}

function fireQuery(scheduleId: string, position: Position | undefined) {
  return {
    KeyConditionExpression: position ? '#pk = :pk AND #sk <= :sk' : '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'pk', ...(position && { '#sk': 'sk' }) },
    ExpressionAttributeValues: {
      ':pk': `${FIRE_JOB_PREFIX}${scheduleId}`,
      ...(position && { ':sk': fireJobSortKey(position.t) }),
    },
  };
}

function indexQuery(scheduleId: string, position: Position | undefined) {
  return {
    IndexName: INDEX_NAMES.jobsBySchedule,
    KeyConditionExpression: position ? '#s = :s AND #runAt <= :t' : '#s = :s',
    ExpressionAttributeNames: { '#s': 'scheduleId', ...(position && { '#runAt': 'runAt' }) },
    ExpressionAttributeValues: { ':s': scheduleId, ...(position && { ':t': position.t }) },
  };
}

function keyOf(item: StoredItem): ItemKey {
  return { pk: String(item.pk), sk: String(item.sk) };
}
