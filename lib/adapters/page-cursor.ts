import { createHash } from 'node:crypto';
import { ValidationError } from '../core/errors';
import { isRecord } from '../core/json';
import type { JobFilter } from '../core/ports/job-store';
import type { ScheduleFilter } from '../core/ports/schedule-store';
import { quote } from '../core/quote';

/**
 * The cursors of the stores' listings: base64url JSON `{ "l": <listing tag>, "p": <position> }`.
 *
 * The tag is a hash of the listing's name and filter, so a cursor is taken only by the listing that
 * handed it out (one of `list_schedules` does not page `list_jobs`, one of task `a` does not page task
 * `b`). The position is checked strictly by that listing's `readPosition`: anything else is invalid
 * input naming `cursor`, never a malformed request to the database. Cursors are not signed (there is
 * no key every admin instance shares); a hand-edited position that passes the check is only a place to
 * resume inside the same listing, which paging could reach anyway.
 */
export type Listing = readonly [name: string, ...filter: (string | boolean | null)[]];

export function encodeCursor(listing: Listing, position: unknown): string {
  return Buffer.from(JSON.stringify({ l: listingTag(listing), p: position })).toString('base64url');
}

/** The position in `cursor` (undefined when there is no cursor); throws `ValidationError` on `cursor`. */
export function decodeCursor<Position>(
  cursor: string | undefined,
  listing: Listing,
  readPosition: (value: unknown) => Position | undefined,
): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = cursorPosition(cursor, listing, readPosition);
  if (position === undefined) {
    throw ValidationError.single(
      'cursor',
      `${quote(cursor)} is not a cursor of this listing (a cursor pages only the action and filters that returned it); omit it to start over`,
    );
  }
  return position;
}

/** The position in `cursor` when it is one of `listing` that `readPosition` accepts; otherwise undefined. */
export function cursorPosition<Position>(
  cursor: string,
  listing: Listing,
  readPosition: (value: unknown) => Position | undefined,
): Position | undefined {
  const parsed = parse(cursor);
  return isRecord(parsed) && Object.keys(parsed).length === 2 && parsed.l === listingTag(listing)
    ? readPosition(parsed.p)
    : undefined;
}

/** A reader for positions that are objects with exactly these fields, each passing its check. */
export function exactRecord<Fields extends Record<string, (value: unknown) => boolean>>(
  fields: Fields,
): (value: unknown) => { [Name in keyof Fields]: unknown } | undefined {
  const names = Object.keys(fields);
  return (value) => {
    if (!isRecord(value)) return undefined;
    const keys = Object.keys(value);
    const exact =
      keys.length === names.length &&
      names.every((name) => Object.hasOwn(value, name) && fields[name]?.(value[name]));
    return exact ? (value as { [Name in keyof Fields]: unknown }) : undefined;
  };
}

function listingTag(listing: Listing): string {
  return createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 16);
}

function parse(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The listing of schedules under `filter`, as cursors are bound to it (the same in every store). */
export function scheduleListing(filter: ScheduleFilter): Listing {
  return [
    'schedules',
    filter.task ?? null,
    filter.tag ?? null,
    filter.paused ?? null,
    ...metadataListing(filter.metadata),
  ];
}

/** The listing of jobs under `filter`, as cursors are bound to it (the same in every store). */
export function jobListing(filter: JobFilter): Listing {
  const range =
    filter.finishedFrom === undefined && filter.finishedBefore === undefined
      ? []
      : [String(filter.finishedFrom ?? null), String(filter.finishedBefore ?? null)];
  return [
    'jobs',
    filter.scheduleId ?? null,
    filter.task ?? null,
    filter.status ?? null,
    ...range,
    ...metadataListing(filter.metadata),
  ];
}

/** A metadata filter's part of a listing, in key order; none without one (older cursors stay valid). */
function metadataListing(metadata: Record<string, string> | undefined): string[] {
  if (metadata === undefined || Object.keys(metadata).length === 0) return [];
  const entries = Object.entries(metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [JSON.stringify(entries)];
}
