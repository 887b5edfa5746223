import type { EpochMs } from '../../core/clock';
import { mapWithConcurrency } from '../../core/concurrency';
import type { StoreContext, StoredItem } from './store-context';
import { INDEX_NAMES, type ItemKey, itemKeyString } from './table-design';

/** An entry of the due index: the item's key, the due time seen by the query, and the item as read. */
export interface DueHit {
  key: ItemKey;
  dueAt: EpochMs;
  item: StoredItem;
}

export interface LeaseDueInput<T> {
  /** The due-index partition of shard `n` (`DUE#n` for schedules, `JOBDUE#n` for parked jobs). */
  shardKey: (shard: number) => string;
  now: EpochMs;
  dueBefore: EpochMs;
  limit: number;
  /** Index entries left out before their items are read (the caller holds them already). */
  skipKey?: (key: ItemKey) => boolean;
  /** Whether an item read before leasing is worth a conditional write (cheap reads spare failed writes). */
  isCandidate?: (item: StoredItem) => boolean;
  /**
   * Read each page's items strongly consistent (1 RRU instead of 0.5): the caller acts on the item as
   * read, without a lease write to confirm it. Then an item whose index entry lags is taken when the
   * item itself is still due.
   */
  consistentRead?: boolean;
  /** Only these shards (a dispatcher's share); every shard when absent. */
  shards?: readonly number[];
  /** Tries to lease one hit; `undefined` when the race was lost (or the item changed). */
  lease: (hit: DueHit) => Promise<T | undefined>;
  operation: string;
}

/** The smallest due-index page read per shard. */
const MIN_PAGE = 4;

/** Conditional writes in flight per shard. */
const LEASES_IN_FLIGHT_PER_SHARD = 4;

/**
 * Queries every shard of the due index in parallel, in pages (about `limit / shards` each), earliest
 * first, and leases hits until `limit` leases succeeded. Each page is read first (eventually
 * consistent, 0.5 RRU per item) to skip items under a live lease: the index keeps leased items until
 * their release moves them on, and a failed conditional write costs a full write unit. A lost lease
 * gives its place back to the next hit. A call that fails part-way (a page read or a lease refused,
 * throttled) still returns what it leased, so that its caller sends those now instead of leaving them
 * leased to nobody until the lease runs out; it throws only when it leased nothing.
 */
export async function leaseDueItems<T>(context: StoreContext, input: LeaseDueInput<T>): Promise<T[]> {
  const leased: T[] = [];
  let reserved = 0;
  const tryLease = async (hit: DueHit) => {
    if (reserved >= input.limit) return;
    reserved++;
    try {
      const result = await input.lease(hit);
      if (result === undefined) reserved--;
      else leased.push(result);
    } catch (error) {
      reserved--;
      throw error;
    }
  };
  // Every shard is read in parallel: pages sized to each shard's share of the limit keep the reads (and
  // the BatchGet that follows each page) close to what is leased. Shards with fewer due items leave
  // the rest to the others, which read on.
  const shards = input.shards ?? Array.from({ length: context.shards }, (_, shard) => shard);
  const pageSize = Math.min(100, Math.max(MIN_PAGE, Math.ceil(input.limit / Math.max(1, shards.length))));
  // Without a write per hit, a shard whose page came back first would read on while the others' pages
  // are in flight, and their hits past the limit would be read for nothing: a consistent read waits
  // while the pages in flight could fill the limit.
  const pagesInFlight = new Set<Promise<unknown>>();
  const mayFill = () => reserved + pagesInFlight.size * pageSize >= input.limit;
  const drainShard = async (shard: number) => {
    let startKey: Record<string, unknown> | undefined;
    do {
      while (input.consistentRead && reserved < input.limit && pagesInFlight.size > 0 && mayFill()) {
        await Promise.race(pagesInFlight);
      }
      if (reserved >= input.limit) return;
      const reading: Promise<PageRead> = readPage(shard, startKey).finally(() =>
        pagesInFlight.delete(inFlight),
      );
      // Another shard's failed read is that shard's to report, not a reason for this one to stop.
      const inFlight = reading.catch(() => undefined);
      pagesInFlight.add(inFlight);
      const { page, hits } = await reading;
      await mapWithConcurrency(hits, LEASES_IN_FLIGHT_PER_SHARD, tryLease);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  };
  const readPage = async (shard: number, startKey: Record<string, unknown> | undefined) => {
    const page = await context.query(input.operation, {
      IndexName: INDEX_NAMES.due,
      KeyConditionExpression: '#shard = :shard AND #dueAt <= :before',
      ExpressionAttributeNames: { '#shard': 'dueShard', '#dueAt': 'dueAt' },
      ExpressionAttributeValues: { ':shard': input.shardKey(shard), ':before': input.dueBefore },
      Limit: pageSize,
      ExclusiveStartKey: startKey,
    });
    return { page, hits: await candidates(context, input, page.Items ?? []) };
  };
  const drained = await Promise.allSettled(shards.map((shard) => drainShard(shard)));
  const failure = drained.find((outcome) => outcome.status === 'rejected');
  if (failure && leased.length === 0) throw failure.reason;
  return leased;
}

interface PageRead {
  page: { Items?: StoredItem[]; LastEvaluatedKey?: Record<string, unknown> };
  hits: DueHit[];
}

async function candidates<T>(
  context: StoreContext,
  input: LeaseDueInput<T>,
  entries: StoredItem[],
): Promise<DueHit[]> {
  const entriesRead = entries
    .map((entry) => ({
      key: { pk: String(entry.pk), sk: String(entry.sk) },
      dueAt: Number(entry.dueAt),
    }))
    .filter((entry) => !input.skipKey?.(entry.key));
  if (entriesRead.length === 0) return [];
  const consistent = input.consistentRead ?? false;
  const items = await context.batchGet(
    input.operation,
    entriesRead.map((entry) => entry.key),
    consistent,
  );
  return entriesRead.flatMap((entry) => {
    const item = items.get(itemKeyString(entry.key));
    if (!item || item.dueShard === undefined) return [];
    const stillDue = consistent ? Number(item.dueAt) <= input.dueBefore : item.dueAt === entry.dueAt;
    const leaseUntil = item.leaseUntil;
    const free = typeof leaseUntil !== 'number' || leaseUntil < input.now;
    return stillDue && free && (input.isCandidate?.(item) ?? true) ? [{ ...entry, item }] : [];
  });
}
