import type { EpochMs } from '../../core/clock';
import { mapWithConcurrency } from '../../core/concurrency';
import { bucketOf, DEFAULT_NOTE_GRID, firstOpenBucket, type NoteGrid } from '../../core/planning/note-chunks';
import { DUE_NOTE_BOUNDS, type DueNote } from '../../core/ports/due-notes';
import type { ScheduleStore } from '../../core/ports/schedule-store';
import type { DispatchLogger } from './dispatch-deps';

/** What a dispatch did with notes; in the totals only when notes are on. */
export interface NoteTotals {
  /** Notes read from the shards (stale ones and duplicates included). */
  notesRead: number;
  /**
   * Notes read and skipped: their schedule no longer agrees (changed, paused, removed, finished), or a
   * plan of this tick already covered them (a chain behind the one planned).
   */
  staleNotes: number;
  /** Successor notes written. */
  notesWritten: number;
  /** Cursor writes that moved a shard's cursor. */
  cursorMoves: number;
  /** Buckets a shard's cursor was held before (a failure in them: the next tick redoes them). */
  bucketsHeld: number;
  /** Notes of schedules that failed alone (a plan that raised, a refused send), written again to retry. */
  notesRetried: number;
}

export function emptyNoteTotals(): NoteTotals {
  return {
    notesRead: 0,
    staleNotes: 0,
    notesWritten: 0,
    cursorMoves: 0,
    bucketsHeld: 0,
    notesRetried: 0,
  };
}

/** `into` with `from` added, field by field (the totals of a tick's dispatchers). */
export function addNoteTotals(into: NoteTotals, from: NoteTotals): NoteTotals {
  for (const field of Object.keys(into) as (keyof NoteTotals)[]) into[field] += from[field];
  return into;
}

/** One dispatch's use of notes: its shards, their cursors, its writer names and its counts. */
export class NoteRun {
  readonly grid: NoteGrid = DEFAULT_NOTE_GRID;
  readonly totals = emptyNoteTotals();
  /** Each shard's cursor as read (or created) by `prepareCursors`; absent when that failed. */
  readonly cursors = new Map<number, number>();
  /** Shards outside this dispatch that its notes went into, whose cursors it made sure of. */
  private readonly cursorsOutside = new Set<number>();
  private readonly writerPrefix: string;
  private writes = 0;

  constructor(
    owner: string,
    /** The shards whose notes this dispatch reads. */
    readonly shards: readonly number[],
  ) {
    // Dispatchers of one tick share its owner: their first shard tells their writes apart.
    const share = shards.length > 0 ? `.d${Math.min(...shards)}` : '';
    this.writerPrefix = `${owner.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 80)}${share}`;
  }

  /**
   * Reads the cursor of each shard, before this dispatch writes any note; a shard without one gets one
   * at the bucket of `now`. So a note is only ever written into a shard that has a cursor, and a shard
   * without one has no note anywhere: its reader may start at the current bucket rather than two weeks back
   * (the notes' retention), whose empty buckets would cost a query each. A shard whose cursor could not
   * be read or created is not read this tick.
   */
  async prepareCursors(
    store: ScheduleStore,
    now: EpochMs,
    concurrency: number,
    logger: DispatchLogger,
  ): Promise<void> {
    await mapWithConcurrency(this.shards, concurrency, async (shard) => {
      try {
        const cursor =
          (await store.readNoteCursor(shard)) ??
          (await store.createNoteCursor(shard, bucketOf(this.grid, now)));
        this.cursors.set(shard, cursor);
      } catch (error) {
        logger.error('due-note cursor could not be read; its shard waits for the next tick', {
          shard,
          error,
        });
      }
    });
  }

  /** A writer name no other call of this dispatch (nor another tick's or dispatcher's) uses. */
  nextWriter(): string {
    this.writes += 1;
    return `${this.writerPrefix}.${this.writes}`;
  }

  /**
   * Writes notes in calls of at most `DUE_NOTE_BOUNDS.notesPerWrite`, each placed at least at the first
   * open bucket of the clock read just before its put (the placement margin): the notes of the calls
   * that failed are returned (none of them counts as written).
   *
   * A note goes into its schedule's shard under the store's shard count, which is not always a shard of
   * this dispatch: after the count was raised (ADR 0006), a schedule read from an old shard is noted in
   * its new one, which may never have had a cursor. That shard's cursor is created first, at the bucket
   * of the same clock, so the note lands after it; a reader starting there would skip it otherwise.
   */
  async write(
    store: ScheduleStore,
    notes: readonly DueNote[],
    clock: { now(): EpochMs },
  ): Promise<{ failed: DueNote[]; error?: unknown }> {
    const failed: DueNote[] = [];
    let error: unknown;
    for (let start = 0; start < notes.length; start += DUE_NOTE_BOUNDS.notesPerWrite) {
      const now = clock.now();
      const open = firstOpenBucket(this.grid, now);
      const chunk = notes.slice(start, start + DUE_NOTE_BOUNDS.notesPerWrite);
      const placed = chunk.map((note) => ({ ...note, bucket: Math.max(note.bucket, open) }));
      try {
        await this.createCursorsOutside(store, placed, bucketOf(this.grid, now));
        await store.writeDueNotes({ writer: this.nextWriter(), notes: placed, now });
        this.totals.notesWritten += placed.length;
      } catch (caught) {
        error ??= caught;
        failed.push(...chunk);
      }
    }
    return { failed, ...(error !== undefined && { error }) };
  }

  /** Creates the cursor of every shard `notes` go into that this dispatch did not prepare (see `write`). */
  private async createCursorsOutside(
    store: ScheduleStore,
    notes: readonly DueNote[],
    atBucket: number,
  ): Promise<void> {
    const shards = new Set(notes.map((note) => store.noteShardOf(note.entry.scheduleId)));
    for (const shard of shards) {
      if (this.cursors.has(shard) || this.cursorsOutside.has(shard)) continue;
      await store.createNoteCursor(shard, atBucket);
      this.cursorsOutside.add(shard);
    }
  }
}
