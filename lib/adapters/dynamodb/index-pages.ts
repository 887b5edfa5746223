import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../../core/errors';
import type { Page, PageRequest } from '../../core/model/page';
import type { StoreContext, StoredItem } from './store-context';

export interface IndexPageInput<T> {
  operation: string;
  query: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>;
  /** The attributes of an index entry's key (index keys and table keys): what a cursor holds. */
  keyAttributes: readonly string[];
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
  let startKey = decodeCursor(input.page.cursor);
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
        return more ? { items, cursor: encodeCursor(pick(entry, input.keyAttributes)) } : { items };
      }
    }
    if (!output.LastEvaluatedKey) return { items };
    startKey = output.LastEvaluatedKey;
  }
}

function pick(entry: StoredItem, attributes: readonly string[]): StoredItem {
  return Object.fromEntries(attributes.map((attribute) => [attribute, entry[attribute]]));
}

function encodeCursor(key: StoredItem): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string | undefined): StoredItem | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (key && typeof key === 'object' && !Array.isArray(key)) return key as StoredItem;
  } catch {
    // reported below
  }
  throw ValidationError.single(
    'cursor',
    `'${cursor}' is not a cursor returned by this listing; omit it to start over`,
  );
}
