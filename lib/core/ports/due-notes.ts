import type { EpochMs } from '../clock';
import type { DueNoteEntry, DueNoteIdentity } from '../model/due-note';
import type { Schedule } from '../model/schedule';

/** A due note and the bucket it is read in (ADR 0007). */
export interface DueNote {
  bucket: number;
  entry: DueNoteEntry;
}

export interface WriteDueNotesInput {
  /**
   * Names the items of this call (`<writer>#<seq>`): unique per call, at most 100 characters from
   * letters, digits and `. _ : -`. An item is never overwritten: a writer used twice is an error.
   */
  writer: string;
  /** At most `DUE_NOTE_BOUNDS.notesPerWrite`. */
  notes: readonly DueNote[];
  /** The writer's clock: every note must be placed at or after `firstOpenBucket` of it (the placement margin). */
  now: EpochMs;
}

/** Where a page of a shard's notes stopped: in `bucket`, after the item named `afterItem`. */
export interface DueNotesPosition {
  bucket: number;
  afterItem?: string;
}

export interface ReadDueNotesInput {
  /** The due shard, 0 to `dueShards − 1`. */
  shard: number;
  /** The shard's cursor: the last bucket fully processed. Buckets after it are read. */
  afterBucket: number;
  /** Only buckets that have started by `now` are read. */
  now: EpochMs;
  /** At most this many note items (each up to 25 KB) per page, from 1 to `DUE_NOTE_BOUNDS.itemsPerPage`. */
  limit: number;
  /** The previous page's `next`; the first page starts after `afterBucket`. */
  from?: DueNotesPosition;
}

/** An entry (or a whole item) a reader could not take back: skipped, reported, never fatal. */
export interface CorruptDueNote {
  bucket: number;
  /** The note item's name (its sort key). */
  item: string;
  reason: string;
}

export interface DueNotesPage {
  /** Oldest bucket first; within a bucket, in item order. */
  notes: DueNote[];
  corrupt: CorruptDueNote[];
  /**
   * Every note of the buckets up to this one has been returned (on this page or before): once they are
   * processed, the cursor may move here. `afterBucket` (or before `from`) when no bucket was finished.
   */
  completeThrough: number;
  /** Where the next page starts; absent when every bucket started by `now` was read. */
  next?: DueNotesPosition;
}

/** The live notes of many schedules of one shard, found in one read of each bucket (an admin page). */
export interface FindLiveNotesInput {
  /** The due shard of every schedule given. */
  shard: number;
  /** At most `DUE_NOTE_BOUNDS.liveNoteSchedules`. */
  schedules: readonly DueNoteIdentity[];
  /** The buckets to read (any, not only consecutive ones): at most `DUE_NOTE_BOUNDS.liveNoteBuckets`. */
  buckets: readonly number[];
}

/** Every input is bounded: a call outside these bounds throws a `RangeError` before reading or writing. */
export const DUE_NOTE_BOUNDS = {
  notesPerWrite: 5_000,
  itemsPerPage: 100,
  /** Note items a tick reads per page of a shard. */
  itemsPerRead: 20,
  /** Buckets (empty ones included: one query each) a page reads at most; a long outage takes pages. */
  bucketsPerPage: 60,
  liveNoteBuckets: 12,
  liveNoteSchedules: 1_000,
} as const;

/**
 * How long a write of due notes may take, its tries included. A note is placed two 10 s buckets after
 * its writer's clock and read once its bucket starts; a write that took longer than this may have landed
 * after its bucket was read, so its writer counts it as not written (or, when it cannot take the write
 * back, writes the note again: ADR 0007, placement margin).
 */
export const NOTE_WRITE_DEADLINE_MS = 5_000;

/**
 * How long a note item is kept after its bucket ends (its table TTL): read late rather than never. A tick
 * stopped for longer (a broken deploy left over a long weekend, a disabled rule) would find the notes of
 * the buckets it skipped gone, and their schedules stopped; two weeks of notes cost little storage (an
 * hourly schedule: 336 entries of ~45 bytes, 15 KB).
 */
export const NOTE_RETENTION_MS = 14 * 24 * 3600 * 1000;

/**
 * Due notes (ADR 0007, 0008): every active schedule is moved on by entries in shared, time-bucketed
 * items instead of a write of its own item, and the per-shard cursors of their readers.
 */
export interface DueNoteStore {
  /**
   * Writes notes into their shards' buckets (`DUENOTES#<shard>#<bucket>`), packed into items of at most
   * 25 KB, each expiring `NOTE_RETENTION_MS` after its bucket ends. Resolves once every item is written;
   * a failure throws (a note is never counted as written when its put raised), and so does a write that
   * takes longer than the placement margin allows (the DynamoDB store: 5 s). Read `now` just before.
   */
  writeDueNotes(input: WriteDueNotesInput): Promise<void>;

  /**
   * Deletes the item a write of this one note by `writer` put (its first item): the first note of a
   * chain, once the writer has sent its first fires and noted the chunk after them (ADR 0008).
   */
  removeDueNote(writer: string, note: DueNote): Promise<void>;

  /**
   * Reads a shard's notes after its cursor, strongly consistent, oldest bucket first, one page at a
   * time; only buckets started by `now` (a note is never read before its bucket).
   */
  readDueNotes(input: ReadDueNotesInput): Promise<DueNotesPage>;

  /** The shard's cursor (`DUECURSOR#<shard>`): the last bucket fully processed; undefined before the first move. */
  readNoteCursor(shard: number): Promise<number | undefined>;

  /**
   * Creates the shard's cursor at `atBucket` when it has none (one conditional write); an existing
   * cursor is left where it stands. Returns where the cursor stands.
   */
  createNoteCursor(shard: number, atBucket: number): Promise<number>;

  /** The shard a note of this schedule is written into (its due shard under the store's shard count). */
  noteShardOf(scheduleId: string): number;

  /**
   * Moves the shard's cursor to `toBucket`, only forward, with one conditional write. True when the
   * cursor now stands at `toBucket` (this call moved it, or it stood there already); false when it
   * stood further ahead (a concurrent reader got further): nothing was written.
   */
  moveNoteCursor(shard: number, toBucket: number): Promise<boolean>;

  /**
   * The schedules of these ids, strongly consistent, by id (absent ids are left out): what a note reader
   * checks its notes against (DynamoDB: BatchGetItem, 100 keys a request).
   */
  readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>>;

  /**
   * The live notes of many schedules of one shard at once: each bucket given is read once (every item,
   * strongly consistent), whatever the number of schedules. Answers, by schedule id, the note of its
   * chain with the earliest next fire time among those buckets, for each schedule that has one.
   */
  findLiveNotes(input: FindLiveNotesInput): Promise<Map<string, DueNote>>;
}
