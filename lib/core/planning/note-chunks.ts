import type { EpochMs } from '../clock';
import { hash53 } from '../string-hash';
import { type FireTimeSource, withinWindow } from '../triggers';
import { missedFireTimes, type PlannedFire, plannedFires } from './fire-choices';
import type { FirePolicies } from './policies';

/**
 * The fixed grid of due notes (ADR 0007): a note stands for the fires of one chunk `[g, g + chunkMs)` of
 * a grid fixed since the epoch, and is read in the bucket of its read time.
 */
export interface NoteGrid {
  /** W: the width of a chunk. At least the tick period + its budget + two buckets, so an on-time read never clamps. */
  chunkMs: number;
  /** D: a chunk's note is read this long before the chunk starts. */
  readAheadMs: number;
  /** An isolated fire's note is read this long before the fire (ADR 0006's early send, within the SQS delay). */
  isolatedReadAheadMs: number;
  /** A fire is isolated when the one after it is more than this later (or there is none). */
  isolatedGapMs: number;
  /** Notes are grouped by the bucket of their read time, this wide. */
  bucketMs: number;
}

export const DEFAULT_NOTE_GRID: NoteGrid = {
  chunkMs: 120_000,
  readAheadMs: 150_000,
  isolatedReadAheadMs: 840_000,
  isolatedGapMs: 900_000,
  bucketMs: 10_000,
};

/**
 * One schedule's grid: its chunks start `phaseMs` after the grid's (a whole number of buckets, from a
 * hash of its id). Were every schedule's chunks aligned, every note of a shard would fall in one bucket
 * of each chunk, and the fires of the whole chunk (two minutes of every schedule) would go out at once;
 * spread over the chunk's buckets, each reading sends the fires of a bucket's share of the schedules.
 * The phase is the same for every chain of a schedule, so its chains still meet at the same chunks.
 */
export interface ScheduleGrid extends NoteGrid {
  readonly phaseMs: number;
}

const PHASE_SEED = 0x9e37;

/** `grid` as `scheduleId`'s chunks lie on it (`ScheduleGrid`). */
export function scheduleGrid(grid: NoteGrid, scheduleId: string): ScheduleGrid {
  const phases = Math.max(1, Math.floor(grid.chunkMs / grid.bucketMs));
  return { ...grid, phaseMs: (hash53(scheduleId, PHASE_SEED) % phases) * grid.bucketMs };
}

/** The start of the chunk holding `fireTime`. */
export function chunkStart(grid: ScheduleGrid, fireTime: EpochMs): EpochMs {
  return Math.floor((fireTime - grid.phaseMs) / grid.chunkMs) * grid.chunkMs + grid.phaseMs;
}

/** The bucket (counted from the epoch) holding `time`: a reader at `time` may read it and every one before. */
export function bucketOf(grid: NoteGrid, time: EpochMs): number {
  return Math.floor(time / grid.bucketMs);
}

/** When `bucket` starts: it is read only from then on. */
export function bucketStart(grid: NoteGrid, bucket: number): EpochMs {
  return bucket * grid.bucketMs;
}

/** The bucket a note may be read in at the earliest, when written at `now`: two after `now`'s. */
export function firstOpenBucket(grid: NoteGrid, now: EpochMs): number {
  return bucketOf(grid, now) + 2;
}

/** The bucket a note of next fire `fireTime` belongs in by the grid alone (before the placement margin). */
export function naturalBucket(grid: ScheduleGrid, source: FireTimeSource, fireTime: EpochMs): number {
  const following = source.next(fireTime + 1);
  const isolated = following === undefined || following > fireTime + grid.isolatedGapMs;
  const readAt = isolated
    ? fireTime - grid.isolatedReadAheadMs
    : chunkStart(grid, fireTime) - grid.readAheadMs;
  return bucketOf(grid, readAt);
}

export interface NoteChunkInput {
  scheduleId: string;
  source: FireTimeSource;
  /** The note's next fire time: where its chain stands. */
  nextFireAt: EpochMs;
  policies: FirePolicies;
  /** The grid: the plan places the schedule's chunks on it by its id (`scheduleGrid`). */
  grid: NoteGrid;
  /** A plan dispatches at most this many fires; the successor note carries the rest. */
  maxFires: number;
  /** The fires its chain may still dispatch (`maxRuns − runs`); absent: no limit. Reaching it ends the chain. */
  runsLeft?: number;
  /** The chain ended at this fire (its schedule was finished there): no later fire, and no successor. */
  endsAt?: EpochMs;
  now: EpochMs;
  random: () => number;
}

export interface NoteChunkPlan {
  fires: PlannedFire[];
  /**
   * The note this plan leaves (the first fire not dispatched and its bucket); null when the chain ends
   * with this plan: its trigger has no fire left, its runs are used up, or it ended before (`endsAt`).
   */
  successor: { nextFireAt: EpochMs; bucket: number } | null;
  /** True when fire times were dropped by the coalesce policy. */
  coalesced: boolean;
}

/**
 * The fires a note's reader dispatches, and the note it leaves. Read on time, the plan is its chunk,
 * `[nextFireAt, chunk end)`, and the successor is the first fire of the next chunk that holds one:
 * nothing depends on `now`, so two readers of one note (overlapping ticks, a crash and its redo) leave
 * the same successor. A late reader (its successor could not be placed two buckets ahead of `now`)
 * sends missed fires through the coalesce policy, then chunk after chunk until the successor can be
 * placed; its chain and an on-time one meet at the first chunk both reach, where they are read as one.
 */
export function planNoteChunk(input: NoteChunkInput): NoteChunkPlan {
  const { now } = input;
  const grid = scheduleGrid(input.grid, input.scheduleId);
  const source = withinWindow(input.source, undefined, input.endsAt);
  const runsLeft = Math.max(0, input.runsLeft ?? Number.POSITIVE_INFINITY);
  const maxFires = Math.min(input.maxFires, runsLeft);
  const fireTimes: EpochMs[] = [];
  let from = input.nextFireAt;
  let coalesced = false;
  if (input.nextFireAt <= now && maxFires > 0) {
    const missed = missedFireTimes(source, input.nextFireAt, now, input.policies.coalesce, maxFires);
    fireTimes.push(...missed.fireTimes);
    from = missed.resumeFrom;
    coalesced = missed.coalesced;
  }
  const open = firstOpenBucket(grid, now);
  let end = chunkStart(grid, input.nextFireAt) + grid.chunkMs;
  let candidate = maxFires > 0 ? source.next(from) : undefined;
  for (;;) {
    while (candidate !== undefined && candidate < end && fireTimes.length < maxFires) {
      fireTimes.push(candidate);
      candidate = source.next(candidate + 1);
    }
    if (candidate === undefined || fireTimes.length >= maxFires) break;
    if (naturalBucket(grid, source, candidate) >= open) break;
    end = chunkStart(grid, candidate) + grid.chunkMs;
  }
  // The runs left are used up: the chain ends here, whatever its trigger still has.
  if (fireTimes.length >= runsLeft) candidate = undefined;
  return {
    fires: plannedFires(input, fireTimes, candidate),
    successor:
      candidate === undefined
        ? null
        : { nextFireAt: candidate, bucket: Math.max(naturalBucket(grid, source, candidate), open) },
    coalesced,
  };
}
