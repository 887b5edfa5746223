import type { Page, PageRequest } from '../../core/model/page';
import { decodeCursor, encodeCursor, type Listing } from '../page-cursor';

/** Position keys are ids with a sort prefix: longer ones were never handed out. */
const MAX_POSITION_CHARS = 1_000;

/**
 * One page of `sorted` (already filtered and ordered), starting after the item whose position key is in
 * the cursor. Position keys are unique strings that sort like the listing; cursors are bound to `listing`.
 */
export function pageAfter<T, R>(
  sorted: readonly T[],
  page: PageRequest,
  listing: Listing,
  positionOf: (item: T) => string,
  present: (item: T) => R,
): Page<R> {
  let start = 0;
  const after = decodeCursor(page.cursor, listing, readPosition);
  if (after !== undefined) {
    const index = sorted.findIndex((item) => positionOf(item) === after);
    start = index >= 0 ? index + 1 : sorted.filter((item) => positionOf(item) <= after).length;
  }
  const limit = Math.max(1, page.limit);
  const items = sorted.slice(start, start + limit);
  const last = items.at(-1);
  const more = start + limit < sorted.length;
  return more && last !== undefined
    ? { items: items.map(present), cursor: encodeCursor(listing, positionOf(last)) }
    : { items: items.map(present) };
}

function readPosition(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_POSITION_CHARS ? value : undefined;
}
