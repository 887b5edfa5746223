import type { EpochMs } from '../clock';
import type { DueNoteEntry } from '../model/due-note';
import type { Schedule } from '../model/schedule';
import type { DueNote } from '../ports/due-notes';
import { bucketOf, firstOpenBucket, type NoteGrid, scheduleGrid } from './note-chunks';

/**
 * A closing note (ADR 0011) is first read this long after the schedule's last fire, plus the schedule's
 * phase: by then its job has usually ended, and schedules that end together close over a chunk instead
 * of all at once.
 */
export const CLOSING_DELAY_MS = 60_000;

/** A closing note whose last job has not ended is read again after as long as that fire is old, at most this. */
export const CLOSING_WAIT_MAX_MS = 15 * 60_000;

/**
 * The note that removes a finished schedule once the job of its last fire has ended (ADR 0011): what
 * the reader of the note that ended a chain leaves instead of a successor. Its next fire is one ms after
 * the last fire, a time no chain stands at, so it never stands for fires (`standsFor`), and a reader
 * tells it by its shape alone (`closes`).
 */
export function closingNote(
  grid: NoteGrid,
  entry: Omit<DueNoteEntry, 'nextFireAt' | 'lastFireAt'> & { lastFireAt: EpochMs },
  now: EpochMs,
): DueNote {
  const { lastFireAt } = entry;
  const { phaseMs } = scheduleGrid(grid, entry.scheduleId);
  const wait = Math.min(Math.max(now - lastFireAt, CLOSING_DELAY_MS), CLOSING_WAIT_MAX_MS);
  const readAt = Math.max(lastFireAt + CLOSING_DELAY_MS + phaseMs, now + wait);
  return {
    bucket: Math.max(bucketOf(grid, readAt), firstOpenBucket(grid, now)),
    entry: { ...entry, nextFireAt: lastFireAt + 1 },
  };
}

/**
 * Whether `entry` is a closing note of the schedule as read: finished (no next fire, not paused), not
 * kept, and the note names its last fire. Any chain's: the removal is conditional on the schedule as
 * read, so a closing note never removes a schedule that changed since, whichever chain wrote it.
 */
export function closes(schedule: Schedule | undefined, entry: DueNoteEntry): schedule is Schedule {
  if (schedule === undefined || schedule.nextFireAt !== null || schedule.paused) return false;
  if (schedule.keepFinished || schedule.lastFireAt === null) return false;
  return entry.lastFireAt === schedule.lastFireAt && entry.nextFireAt === schedule.lastFireAt + 1;
}
