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

export interface ConvertScheduleToNotesInput {
  id: string;
  /** The version, creation time and next fire time read: the conversion applies only if they still hold. */
  seenVersion: number;
  seenCreatedAt: EpochMs;
  seenNextFireAt: EpochMs;
  /** `runs` after the fires this advance dispatched (as its successor note carries it). */
  runs: number;
  /** The latest fire time dispatched (unchanged when `null`). */
  lastFireAt: EpochMs | null;
  /** A live lease (a schedule with `max_runs`) refuses the conversion, as it refuses an advance. */
  now: EpochMs;
}

/** A note-indexed schedule whose trigger ended: finished as the item-indexed path finishes one. */
export interface FinishScheduleOnNotesInput {
  id: string;
  /** The version and creation time of the note read (and of the item): the write applies only if they still hold. */
  seenVersion: number;
  seenCreatedAt: EpochMs;
  /** `runs` after the fires of the last plan (as a successor note would carry it). */
  runs: number;
  /** The latest fire time dispatched (unchanged when `null`). */
  lastFireAt: EpochMs | null;
}

export interface FindLiveNoteInput extends DueNoteIdentity {
  /** The buckets its chain may be in, both included: at most `DUE_NOTE_BOUNDS.liveNoteBuckets`. */
  fromBucket: number;
  throughBucket: number;
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
  /** Buckets (empty ones included: one query each) a page reads at most; a long outage takes pages. */
  bucketsPerPage: 60,
  liveNoteBuckets: 12,
  liveNoteSchedules: 1_000,
} as const;

/**
 * How long a note item is kept after its bucket ends (its table TTL): read late rather than never. A tick
 * stopped for longer (a broken deploy left over a long weekend, a disabled rule) would find the notes of
 * the buckets it skipped gone, and their schedules stopped; two weeks of notes cost little storage (an
 * hourly schedule: 336 entries of ~45 bytes, 15 KB).
 */
export const NOTE_RETENTION_MS = 14 * 24 * 3600 * 1000;

/**
 * Due notes (ADR 0007): schedules moved on by entries in shared, time-bucketed items instead of a write
 * of their own item, the per-shard cursors of their readers, and the write that hands an item-indexed
 * schedule over to notes. Not used by the tick yet (ADR 0007, build plan step 3).
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
   * Hands an item-indexed schedule over to notes with one conditional write (`REMOVE dueShard`,
   * `SET runs, lastFireAt`): only while its version, creation time and next fire time are as read, it is
   * not paused, has no `maxRuns` (those stay item-indexed) and no live lease holds it. It keeps `dueAt`
   * and reads as `onNotes` from then on. Write its successor note first. True when it applied (or an
   * identical conversion had: a retry whose answer was lost), false otherwise.
   */
  convertScheduleToNotes(input: ConvertScheduleToNotesInput): Promise<boolean>;

  /**
   * Finishes a note-indexed schedule whose trigger ended (its note had no successor): one conditional
   * write that sets `runs` and `lastFireAt` and clears `onNotes`, leaving it as the item-indexed path
   * leaves a finished schedule (no next fire time, out of the due index). Only while it is converted
   * (`onNotes`, `dueShard` absent), not paused, and its version and creation time are as read. True when
   * it applied (or an identical finish had), false otherwise: an item still indexed is the index path's
   * to finish.
   */
  finishScheduleOnNotes(input: FinishScheduleOnNotesInput): Promise<boolean>;

  /**
   * The schedules of these ids, strongly consistent, by id (absent ids are left out): what a note reader
   * checks its notes against (DynamoDB: BatchGetItem, 100 keys a request).
   */
  readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>>;

  /**
   * The note a schedule's chain stands at, among the buckets given: the entry of its id, version and
   * creation time with the earliest next fire time; undefined when there is none. Corrupt entries are
   * skipped (the bucket's reader reports them).
   */
  findLiveNote(input: FindLiveNoteInput): Promise<DueNote | undefined>;

  /**
   * `findLiveNote` for many schedules of one shard at once: each bucket given is read once (every item,
   * strongly consistent), whatever the number of schedules. Answers the live note of each schedule that
   * has one among those buckets, by schedule id.
   */
  findLiveNotes(input: FindLiveNotesInput): Promise<Map<string, DueNote>>;
}
