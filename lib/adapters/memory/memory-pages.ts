import { ValidationError } from '../../core/errors';
import type { Page, PageRequest } from '../../core/model/page';

/**
 * One page of `sorted` (already filtered and ordered), starting after the item whose position key is in
 * the cursor. Position keys are unique strings that sort like the listing.
 */
export function pageAfter<T, R>(
  sorted: readonly T[],
  page: PageRequest,
  positionOf: (item: T) => string,
  present: (item: T) => R,
): Page<R> {
  let start = 0;
  if (page.cursor !== undefined) {
    const after = decode(page.cursor);
    const index = sorted.findIndex((item) => positionOf(item) === after);
    start = index >= 0 ? index + 1 : sorted.filter((item) => positionOf(item) <= after).length;
  }
  const limit = Math.max(1, page.limit);
  const items = sorted.slice(start, start + limit);
  const last = items.at(-1);
  const more = start + limit < sorted.length;
  return more && last !== undefined
    ? { items: items.map(present), cursor: encode(positionOf(last)) }
    : { items: items.map(present) };
}

function encode(position: string): string {
  return Buffer.from(JSON.stringify({ after: position })).toString('base64url');
}

function decode(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string') return parsed.after;
  } catch {
    // reported below
  }
  throw ValidationError.single(
    'cursor',
    `'${cursor}' is not a cursor returned by this listing; omit it to start over`,
  );
}
