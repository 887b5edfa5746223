import type { EpochMs } from '../clock';
import type { FireTimeSource } from '../triggers';
import { bucketStart, firstOpenBucket, naturalBucket, type ScheduleGrid } from './note-chunks';

/** At most this many late buckets are searched for a live note (three `findLiveNotes` calls of 12). */
export const MAX_LATE_NOTE_BUCKETS = 36;

export interface LiveNoteSearchInput {
  /** The shard's cursor (the last bucket fully read); undefined before its first move. */
  cursor: number | undefined;
  now: EpochMs;
  /** The item's `nextFireAt`: where its chain started (the first fire of its first note). */
  chainFrom: EpochMs;
  /** No note of the chain was written before this instant (the item's `firesFrom`, at or before the chain's start). */
  writtenAfter: EpochMs;
}

export interface LiveNoteSearch {
  /** The buckets to read, ascending, at most `MAX_LATE_NOTE_BUCKETS + 1`. */
  buckets: number[];
  /** Late buckets were left out (a tick more than the bound behind): a note there is not found. */
  truncated: boolean;
}

/**
 * The buckets a schedule's live note can be in (ADR 0007, "What the admin API reads"). A note is written
 * at `max(naturalBucket(N), firstOpenBucket(writer's clock))` and is unread while its bucket is after the
 * cursor; every writer's clock is at most `now`. So the live note is either
 *
 * - **late or clamped**: at most `open = firstOpenBucket(now)`, after the cursor and after the
 *   `firstOpenBucket` of the chain's start (`writtenAfter`): the notes a late tick has not read yet,
 *   those it placed at its own margin, and those of a chunk read ahead of time; or
 * - **on time**, after `open`: then at `naturalBucket(N)`, where N is the first fire from `chainFrom` on
 *   whose natural bucket is after `open`. Every fire a chain sent before its live note was read from a
 *   bucket at most its reader's `open` (the chain's start reads its first note at once when it is late), so the
 *   fires before N are exactly those with a natural bucket at most `open`.
 *
 * Late buckets are bounded by `MAX_LATE_NOTE_BUCKETS`, oldest first (those a stalled reader left are the
 * oldest): `truncated` says when some were left out.
 */
export function liveNoteBuckets(
  grid: ScheduleGrid,
  source: FireTimeSource,
  input: LiveNoteSearchInput,
): LiveNoteSearch {
  const open = firstOpenBucket(grid, input.now);
  const afterCursor = input.cursor === undefined ? Number.NEGATIVE_INFINITY : input.cursor + 1;
  const low = Math.max(afterCursor, firstOpenBucket(grid, input.writtenAfter));
  const lastLate = Math.min(open, low + MAX_LATE_NOTE_BUCKETS - 1);
  const buckets: number[] = [];
  for (let bucket = low; bucket <= lastLate; bucket++) buckets.push(bucket);
  const onTime = onTimeBucket(grid, source, input.chainFrom, open);
  if (onTime !== undefined && onTime >= low) buckets.push(onTime);
  return { buckets, truncated: lastLate < open };
}

/** The natural bucket of the first fire from `chainFrom` on whose natural bucket is after `open`. */
function onTimeBucket(
  grid: ScheduleGrid,
  source: FireTimeSource,
  chainFrom: EpochMs,
  open: number,
): number | undefined {
  // A note is read at most `latest` and at least `earliest` before its fire: fires before `from` have a
  // natural bucket at most `open`, fires from `through` on one after it (a bounded walk).
  const earliest = Math.min(grid.readAheadMs, grid.isolatedReadAheadMs);
  const latest = Math.max(grid.readAheadMs + grid.chunkMs, grid.isolatedReadAheadMs);
  const afterOpen = bucketStart(grid, open + 1);
  const through = afterOpen + latest;
  for (let fire = source.next(Math.max(chainFrom, afterOpen + earliest)); fire !== undefined; ) {
    const bucket = naturalBucket(grid, source, fire);
    if (bucket > open) return bucket;
    if (fire >= through) return undefined;
    fire = source.next(fire + 1);
  }
  return undefined;
}
