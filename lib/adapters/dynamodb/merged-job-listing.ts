import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { MAX_JOB_ID_LENGTH } from '../../core/model/job-id';
import type { Page, PageRequest } from '../../core/model/page';
import { decodeCursor, encodeCursor, exactRecord, type Listing } from '../page-cursor';
import { epochMs } from './index-pages';
import { isExpired, itemToJob } from './job-items';
import type { StoreContext, StoredItem } from './store-context';
import { type ItemKey, itemKeyString, jobIdFromKey } from './table-design';

/**
 * A job in a listing: its place (listing time, then id) and its key; the item when read whole; and,
 * for a source that may name a job another source lists, which items it stands for.
 */
export interface ListingEntry {
  time: number;
  id: string;
  key: ItemKey;
  item?: StoredItem;
  accepts?: (item: StoredItem) => boolean;
}

/** Where a page ended: listing time and id of the last job looked at. */
export interface ListingPosition {
  t: number;
  id: string;
}

const readPosition = exactRecord({
  t: epochMs,
  id: (value) => typeof value === 'string' && value.length <= MAX_JOB_ID_LENGTH,
});

/** One query a listing merges, read a page at a time in descending key order. */
export interface ListingSource {
  query: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey' | 'ScanIndexForward'>;
  /** The entries an item of the query stands for (an index entry or job item: one; a log item: many). */
  entriesOf: (item: StoredItem) => ListingEntry[];
  /**
   * The highest listing time a later item of the query may still hold, given the last item read
   * (for a job item or index entry: its own time).
   */
  floorAfter: (item: StoredItem) => number;
}

/** A listing's own partition `pk`, from sort key `skUpTo` down (all of it on a first page). */
export function partitionUpTo(pk: string, skUpTo: string | undefined): ListingSource['query'] {
  return {
    KeyConditionExpression: skUpTo === undefined ? '#pk = :pk' : '#pk = :pk AND #sk <= :sk',
    ExpressionAttributeNames: { '#pk': 'pk', ...(skUpTo !== undefined && { '#sk': 'sk' }) },
    ExpressionAttributeValues: { ':pk': pk, ...(skUpTo !== undefined && { ':sk': skUpTo }) },
  };
}

/**
 * The jobs an index keyed by `attribute` and `runAt` holds for `value`, latest run time first (from
 * `position` on): each entry lists its job at its run time.
 */
export function runAtIndexSource(
  indexName: string,
  attribute: string,
  value: string,
  position: ListingPosition | undefined,
): ListingSource {
  return {
    query: {
      IndexName: indexName,
      KeyConditionExpression: position ? '#key = :key AND #runAt <= :t' : '#key = :key',
      ExpressionAttributeNames: { '#key': attribute, ...(position && { '#runAt': 'runAt' }) },
      ExpressionAttributeValues: { ':key': value, ...(position && { ':t': position.t }) },
    },
    entriesOf: (entry) => {
      const key = keyOfItem(entry);
      return [{ time: Number(entry.runAt), id: jobIdFromKey(key), key }];
    },
    floorAfter: (entry) => Number(entry.runAt),
  };
}

/** Latest listing time first; the same time in id order (as the memory store). */
function before(a: ListingEntry, b: ListingEntry): number {
  return b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isAfter(entry: ListingEntry, position: ListingPosition | undefined): boolean {
  return (
    position === undefined || entry.time < position.t || (entry.time === position.t && entry.id > position.id)
  );
}

/**
 * One source being read. `floor` is the listing time down to which it has been read: entries above it
 * are all in `buffer`; entries at it may still follow (an index keeps no order among equal sort keys, a
 * log item's entries spread over its minute), so they are taken only once the source is done or read
 * past it.
 */
class SourceReader {
  private startKey: Record<string, unknown> | undefined;
  private started = false;
  buffer: ListingEntry[] = [];
  done = false;
  floor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly context: StoreContext,
    private readonly source: ListingSource,
    private readonly position: ListingPosition | undefined,
    private readonly pageSize: number,
  ) {}

  async readPage(): Promise<void> {
    if (this.done) return;
    const output = await this.context.query('listJobs', {
      ...this.source.query,
      Limit: this.pageSize,
      ScanIndexForward: false,
      ...(this.started && { ExclusiveStartKey: this.startKey }),
    });
    this.started = true;
    const items = output.Items ?? [];
    const entries = items.flatMap(this.source.entriesOf);
    this.buffer.push(...entries.filter((entry) => isAfter(entry, this.position)));
    this.buffer.sort(before);
    this.startKey = output.LastEvaluatedKey;
    this.done = this.startKey === undefined;
    const last = items.at(-1);
    this.floor = this.done
      ? Number.NEGATIVE_INFINITY
      : last === undefined
        ? this.floor
        : this.source.floorAfter(last);
  }
}

/**
 * One page of jobs merged from several sources, latest first. The sources are read a page at a time; an
 * entry is taken once no source can still hold one before it. An entry listed twice (a fire noted twice
 * in its log) is taken once; an entry whose item it does not stand for is skipped (another source lists
 * that job).
 */
export async function mergedJobPage(
  context: StoreContext,
  input: {
    listing: Listing;
    page: PageRequest;
    now: EpochMs;
    matches: (job: Job) => boolean;
    sources: (position: ListingPosition | undefined) => ListingSource[];
  },
): Promise<Page<Job>> {
  const { listing, now, matches } = input;
  const position = decodeCursor(input.page.cursor, listing, readPosition) as ListingPosition | undefined;
  const limit = Math.max(1, input.page.limit);
  const pageSize = Math.min(100, Math.max(10, 2 * limit));
  const readers = input
    .sources(position)
    .map((source) => new SourceReader(context, source, position, pageSize));
  await Promise.all(readers.map((reader) => reader.readPage()));
  const jobs: Job[] = [];
  /** The last entry that stood for its job: an equal one after it names the same job again. */
  let previous: ListingEntry | undefined;
  for (;;) {
    const floor = Math.max(...readers.map((reader) => reader.floor));
    const ready = readers
      .flatMap((reader) => reader.buffer)
      .filter((entry) => entry.time > floor)
      .sort(before);
    if (ready.length === 0) {
      const behind = readers.filter((reader) => !reader.done);
      if (behind.length === 0) return { items: jobs };
      // The source whose floor holds the others back reads on.
      const highest = behind.reduce((a, b) => (b.floor > a.floor ? b : a));
      await highest.readPage();
      continue;
    }
    const taken = ready.slice(0, limit - jobs.length);
    const takenSet = new Set(taken);
    for (const reader of readers) reader.buffer = reader.buffer.filter((entry) => !takenSet.has(entry));
    const items = await itemsOf(context, taken);
    for (const [index, item] of items.entries()) {
      const entry = taken[index] as ListingEntry;
      const standsFor = item !== undefined && (entry.accepts === undefined || entry.accepts(item));
      const repeated =
        standsFor && previous !== undefined && previous.time === entry.time && previous.id === entry.id;
      if (standsFor) previous = entry;
      const job = standsFor && !repeated && !isExpired(item, now) ? itemToJob(item) : undefined;
      if (job && matches(job)) jobs.push(job);
      if (jobs.length === limit) {
        const more =
          index < taken.length - 1 || readers.some((reader) => !reader.done || reader.buffer.length > 0);
        return more
          ? { items: jobs, cursor: encodeCursor(listing, { t: entry.time, id: entry.id }) }
          : { items: jobs };
      }
    }
  }
}

/** The items of `entries`, index and log entries read whole (eventually consistent, as any listing). */
async function itemsOf(
  context: StoreContext,
  entries: readonly ListingEntry[],
): Promise<(StoredItem | undefined)[]> {
  const missing = entries.filter((entry) => entry.item === undefined).map((entry) => entry.key);
  const found = missing.length > 0 ? await context.batchGet('listJobs', missing, false) : new Map();
  return entries.map((entry) => entry.item ?? found.get(itemKeyString(entry.key)));
}

export function keyOfItem(item: StoredItem): ItemKey {
  return { pk: String(item.pk), sk: String(item.sk) };
}
