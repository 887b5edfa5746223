import type { EpochMs } from '../clock';
import { decodeNoteEntry, encodeNoteEntry, NOTE_ITEM_ENTRY_BYTES, packNoteEntries } from '../model/due-note';
import { bucketStart, DEFAULT_NOTE_GRID, firstOpenBucket, type NoteGrid } from '../planning/note-chunks';
import {
  type CorruptDueNote,
  DUE_NOTE_BOUNDS,
  type DueNote,
  NOTE_RETENTION_MS,
  type WriteDueNotesInput,
} from './due-notes';

// The note items of `DueNoteStore`, shared by both stores: what a write puts and what a read takes back.

/** A note item as stored: its name (the sort key, `<writer>#<seq>`) and its encoded entries. */
export interface NoteItem {
  name: string;
  entries: unknown;
}

/** A note item to put: its shard and bucket (its partition), name, entries and expiry. */
export interface NoteItemToWrite {
  shard: number;
  bucket: number;
  name: string;
  entries: string[];
  expiresAt: EpochMs;
}

const WRITER_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
const SEQ_DIGITS = 5;
/** `<writer>#<seq>`: a longer name was never written. */
export const MAX_ITEM_NAME_LENGTH = 100 + 1 + SEQ_DIGITS;
/** More entries than the shortest ones fill an item with: not an item a writer made. */
const MAX_ENTRIES_PER_ITEM = Math.floor(NOTE_ITEM_ENTRY_BYTES / 12);

/**
 * The items `writeDueNotes` puts: notes grouped by shard and bucket (in the order given), packed into
 * items of at most 25 KB named `<writer>#<seq>`. Throws a `RangeError` on an input out of bounds, an
 * entry no reader could take back, or a note placed before the writer's first open bucket (a reader may
 * already be past it: the note would never be read).
 */
export function noteItemsToWrite(
  input: WriteDueNotesInput,
  shardOf: (scheduleId: string) => number,
  grid: NoteGrid = DEFAULT_NOTE_GRID,
): NoteItemToWrite[] {
  if (!WRITER_PATTERN.test(input.writer)) {
    throw new RangeError(`writer '${input.writer.slice(0, 120)}' must match ${WRITER_PATTERN}`);
  }
  checkCount('notes', input.notes.length, DUE_NOTE_BOUNDS.notesPerWrite);
  const open = firstOpenBucket(grid, input.now);
  const groups = new Map<string, { shard: number; bucket: number; texts: string[] }>();
  for (const { bucket, entry } of input.notes) {
    checkBucket('bucket', bucket);
    if (bucket < open) {
      throw new RangeError(
        `due note of schedule '${entry.scheduleId}' placed in bucket ${bucket}, before the first open bucket ${open} of its writer's clock`,
      );
    }
    const shard = shardOf(entry.scheduleId);
    const key = `${shard}#${bucket}`;
    const group = groups.get(key) ?? { shard, bucket, texts: [] };
    group.texts.push(encodeNoteEntry(entry));
    groups.set(key, group);
  }
  let seq = 0;
  return [...groups.values()].flatMap(({ shard, bucket, texts }) =>
    packNoteEntries(texts).map((entries) => ({
      shard,
      bucket,
      name: noteItemName(input.writer, seq++),
      entries,
      expiresAt: noteItemExpiresAt(bucket, grid),
    })),
  );
}

/** The name of a writer's `seq`-th item (from 0): `<writer>#<seq, 5 digits>`. */
export function noteItemName(writer: string, seq: number): string {
  return `${writer}#${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

/** When a note item may go: `NOTE_RETENTION_MS` after its bucket ends. */
export function noteItemExpiresAt(bucket: number, grid: NoteGrid = DEFAULT_NOTE_GRID): EpochMs {
  return bucketStart(grid, bucket + 1) + NOTE_RETENTION_MS;
}

/** The notes an item of `bucket` holds, and those it cannot give back (skipped, not fatal). */
export function notesOfItem(bucket: number, item: NoteItem): { notes: DueNote[]; corrupt: CorruptDueNote[] } {
  const notes: DueNote[] = [];
  const corrupt: CorruptDueNote[] = [];
  const { entries } = item;
  if (!Array.isArray(entries) || entries.length > MAX_ENTRIES_PER_ITEM) {
    corrupt.push({
      bucket,
      item: item.name,
      reason: `entries are not a list of at most ${MAX_ENTRIES_PER_ITEM}`,
    });
    return { notes, corrupt };
  }
  entries.forEach((text, index) => {
    const decoded = decodeNoteEntry(text);
    if (decoded.ok) notes.push({ bucket, entry: decoded.entry });
    else corrupt.push({ bucket, item: item.name, reason: `entry ${index}: ${decoded.reason}` });
  });
  return { notes, corrupt };
}

export function checkBucket(field: string, bucket: number): void {
  if (!Number.isSafeInteger(bucket) || bucket < 0) {
    throw new RangeError(`${field} must be a whole number from 0, not ${bucket}`);
  }
}

export function checkCount(field: string, count: number, max: number): void {
  if (!Number.isSafeInteger(count) || count < 0 || count > max) {
    throw new RangeError(`${field}: at most ${max}, not ${count}`);
  }
}
