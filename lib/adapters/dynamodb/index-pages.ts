import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { LIMITS } from '../../core/limits';
import type { Page, PageRequest } from '../../core/model/page';
import { decodeCursor, encodeCursor, exactRecord, type Listing } from '../page-cursor';
import type { StoreContext, StoredItem } from './store-context';

export interface IndexPageInput<T> {
  operation: string;
  query: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>;
  /**
   * The attributes of an index entry's key (index keys and table keys), what a cursor holds, each with
   * the check a cursor's value must pass to be used as `ExclusiveStartKey`.
   */
  cursorKey: Readonly<Record<string, (value: unknown) => boolean>>;
  /** The listing and filter the cursor belongs to. */
  listing: Listing;
  page: PageRequest;
  /** Turns index entries into results (aligned with the input); `undefined` drops an entry. */
  resolve: (entries: StoredItem[]) => Promise<(T | undefined)[]>;
}

/**
 * One page of an index query whose entries are resolved (and possibly dropped) after the query: reads
 * index pages until `limit` results are found, and returns a cursor pointing just after the last result
 * taken, so that every result is returned exactly once across pages.
 */
export async function readIndexPage<T>(context: StoreContext, input: IndexPageInput<T>): Promise<Page<T>> {
  const limit = Math.max(1, input.page.limit);
  const items: T[] = [];
  const keyAttributes = Object.keys(input.cursorKey);
  let startKey: StoredItem | undefined = decodeCursor(
    input.page.cursor,
    input.listing,
    exactRecord(input.cursorKey),
  );
  for (;;) {
    const output = await context.query(input.operation, {
      ...input.query,
      Limit: Math.min(100, Math.max(10, 2 * (limit - items.length))),
      ExclusiveStartKey: startKey,
    });
    const entries = output.Items ?? [];
    const resolved = await input.resolve(entries);
    for (const [position, entry] of entries.entries()) {
      const result = resolved[position];
      if (result === undefined) continue;
      items.push(result);
      if (items.length === limit) {
        const more = position < entries.length - 1 || output.LastEvaluatedKey !== undefined;
        return more ? { items, cursor: encodeCursor(input.listing, pick(entry, keyAttributes)) } : { items };
      }
    }
    if (!output.LastEvaluatedKey) return { items };
    startKey = output.LastEvaluatedKey;
  }
}

function pick(entry: StoredItem, attributes: readonly string[]): StoredItem {
  return Object.fromEntries(attributes.map((attribute) => [attribute, entry[attribute]]));
}

/** A cursor check: the value is `expected`. */
export function equalTo(expected: unknown): (value: unknown) => boolean {
  return (value) => value === expected;
}

/** A cursor check for a table key `pk`: an id of this kind, as long as ids can be. */
export function keyWithPrefix(prefix: string): (value: unknown) => boolean {
  return (value) =>
    typeof value === 'string' &&
    value.startsWith(prefix) &&
    value.length > prefix.length &&
    value.length <= prefix.length + 2 * LIMITS.idLength + 1;
}

/** A cursor check for a number attribute of the key: an epoch in milliseconds. */
export function epochMs(value: unknown): boolean {
  return Number.isSafeInteger(value);
}
