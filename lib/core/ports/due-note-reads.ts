import { liveNoteOf } from '../model/due-note';
import { bucketOf, DEFAULT_NOTE_GRID, type NoteGrid } from '../planning/note-chunks';
import { checkBucket, checkCount, MAX_ITEM_NAME_LENGTH, type NoteItem, notesOfItem } from './due-note-items';
import {
  type CorruptDueNote,
  DUE_NOTE_BOUNDS,
  type DueNote,
  type DueNotesPage,
  type FindLiveNotesInput,
  type ReadDueNotesInput,
} from './due-notes';

// How `DueNoteStore` reads, shared by both stores: they differ only in how they fetch a bucket's items.

/**
 * Up to `limit` items of one shard's bucket, in name order, after the item named `afterItem`;
 * `lastItem` names the last one returned when the bucket may hold more.
 */
export type FetchNoteItems = (
  shard: number,
  bucket: number,
  afterItem: string | undefined,
  limit: number,
) => Promise<{ items: NoteItem[]; lastItem?: string }>;

/** One page of `readDueNotes`: buckets oldest first, each read to its end before the next. */
export async function readNotePage(
  input: ReadDueNotesInput,
  shards: number,
  fetch: FetchNoteItems,
  grid: NoteGrid = DEFAULT_NOTE_GRID,
): Promise<DueNotesPage> {
  checkShard(input.shard, shards);
  checkBucket('afterBucket', input.afterBucket);
  if (input.limit < 1) throw new RangeError(`limit must be at least 1, not ${input.limit}`);
  checkCount('limit', input.limit, DUE_NOTE_BOUNDS.itemsPerPage);
  const start = input.from ?? { bucket: input.afterBucket + 1 };
  checkBucket('from.bucket', start.bucket);
  if (start.bucket <= input.afterBucket || (start.afterItem?.length ?? 0) > MAX_ITEM_NAME_LENGTH) {
    throw new RangeError(
      `from (bucket ${start.bucket}) is not a position after the cursor ${input.afterBucket}`,
    );
  }
  const started = bucketOf(grid, input.now);
  const lastRead = Math.min(started, start.bucket + DUE_NOTE_BOUNDS.bucketsPerPage - 1);
  const notes: DueNote[] = [];
  const corrupt: CorruptDueNote[] = [];
  let completeThrough = start.bucket - 1;
  let itemsRead = 0;
  for (let bucket = start.bucket; bucket <= lastRead; bucket++) {
    let after = bucket === start.bucket ? start.afterItem : undefined;
    for (;;) {
      if (itemsRead >= input.limit) {
        return {
          notes,
          corrupt,
          completeThrough,
          next: { bucket, ...(after !== undefined && { afterItem: after }) },
        };
      }
      const fetched = await fetch(input.shard, bucket, after, input.limit - itemsRead);
      for (const item of fetched.items) {
        const read = notesOfItem(bucket, item);
        notes.push(...read.notes);
        corrupt.push(...read.corrupt);
      }
      itemsRead += fetched.items.length;
      if (fetched.lastItem === undefined) break;
      after = fetched.lastItem;
    }
    completeThrough = bucket;
  }
  return {
    notes,
    corrupt,
    completeThrough,
    ...(lastRead < started && { next: { bucket: lastRead + 1 } }),
  };
}

/** `findLiveNotes`: every item of each bucket given, read once; the earliest note of each schedule. */
export async function findLiveNotesIn(
  input: FindLiveNotesInput,
  shards: number,
  fetch: FetchNoteItems,
): Promise<Map<string, DueNote>> {
  checkShard(input.shard, shards);
  checkCount('buckets of a live-note lookup', input.buckets.length, DUE_NOTE_BOUNDS.liveNoteBuckets);
  checkCount('schedules of a live-note lookup', input.schedules.length, DUE_NOTE_BOUNDS.liveNoteSchedules);
  for (const bucket of input.buckets) checkBucket('bucket', bucket);
  const identities = new Map(input.schedules.map((identity) => [identity.scheduleId, identity]));
  const found = new Map<string, DueNote>();
  for (const bucket of new Set(input.buckets)) {
    let after: string | undefined;
    do {
      const fetched = await fetch(input.shard, bucket, after, DUE_NOTE_BOUNDS.itemsPerPage);
      for (const item of fetched.items) {
        for (const note of notesOfItem(bucket, item).notes) {
          const identity = identities.get(note.entry.scheduleId);
          const earlier =
            identity && liveNoteOf([note, ...optional(found.get(identity.scheduleId))], identity);
          if (earlier) found.set(note.entry.scheduleId, earlier);
        }
      }
      after = fetched.lastItem;
    } while (after !== undefined);
  }
  return found;
}

function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}

export function checkShard(shard: number, shards: number): void {
  if (!Number.isSafeInteger(shard) || shard < 0 || shard >= shards) {
    throw new RangeError(`shard must be a whole number from 0 to ${shards - 1}, not ${shard}`);
  }
}
