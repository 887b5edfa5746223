import { mapWithConcurrency } from '../../core/concurrency';
import type { Schedule } from '../../core/model/schedule';
import { DUE_NOTE_BOUNDS, type DueNotesPosition } from '../../core/ports/due-notes';
import type { DispatchDeps, DispatchSummary } from './dispatch-deps';
import { dispatchNotePage, type PageOptions, type PlannedSpan } from './note-page';
import type { NoteRun } from './note-run';

export interface NoteReadOptions extends PageOptions {
  /** Stop reading pages at this instant (the tick's budget). */
  stopAcquiringAt: number;
}

export interface NoteReadOutcome {
  summaries: DispatchSummary[];
  /** Finished schedules removed by their closing notes (ADR 0011). */
  removed: Schedule[];
  /** Shards whose reading failed outright (their cursor stays: the next tick reads them again). */
  errors: number;
  budgetExhausted: boolean;
}

/**
 * The note reader (ADR 0007, 0008): each shard's notes after its cursor, page by page, oldest bucket first,
 * until every started bucket is read or the budget is spent. After a page is dispatched (fires sent,
 * successors written), the cursor moves to the last bucket the page completed, but never to or past a
 * bucket with a failure in it: that bucket and all after it are redone by the next tick (the same job
 * ids, dropped at claim; successors noted twice are read as one). Later pages are still dispatched, so
 * one failing schedule does not hold back the fires of the rest of its shard.
 */
export async function readDueNotesOfShards(
  deps: DispatchDeps,
  run: NoteRun,
  options: NoteReadOptions,
): Promise<NoteReadOutcome> {
  const outcome: NoteReadOutcome = { summaries: [], removed: [], errors: 0, budgetExhausted: false };
  await mapWithConcurrency(run.shards, options.concurrency, async (shard) => {
    const cursor = run.cursors.get(shard);
    if (cursor === undefined) {
      outcome.errors += 1; // its cursor could not be read (logged then): the next tick reads the shard
      return;
    }
    try {
      await readShard(deps, run, shard, cursor, options, outcome);
    } catch (error) {
      outcome.errors += 1;
      options.logger.error('due notes of a shard could not be read; the next tick reads them again', {
        shard,
        error,
      });
    }
  });
  return outcome;
}

async function readShard(
  deps: DispatchDeps,
  run: NoteRun,
  shard: number,
  readCursor: number,
  options: NoteReadOptions,
  outcome: NoteReadOutcome,
): Promise<void> {
  const store = deps.scheduleStore;
  let cursor = readCursor;
  let heldAt: number | undefined;
  let from: DueNotesPosition | undefined;
  // Where the cursor may go: written after a page that had notes and at the end (empty pages cost no write).
  let target = cursor;
  const moveCursor = async (): Promise<boolean> => {
    if (target <= cursor) return true;
    if (!(await store.moveNoteCursor(shard, target))) return false; // a concurrent reader is further
    run.totals.cursorMoves += 1;
    cursor = target;
    return true;
  };
  const planned = new Map<string, PlannedSpan>();
  for (;;) {
    const now = deps.clock.now();
    if (now >= options.stopAcquiringAt) {
      outcome.budgetExhausted = true;
      await moveCursor();
      return;
    }
    const page = await store.readDueNotes({
      shard,
      afterBucket: cursor,
      now,
      limit: DUE_NOTE_BOUNDS.itemsPerRead,
      ...(from && { from }),
    });
    if (page.corrupt.length > 0) {
      options.logger.error('corrupt due notes skipped', { shard, corrupt: page.corrupt });
    }
    const dispatched = await dispatchNotePage(deps, run, page.notes, planned, options);
    outcome.summaries.push(...dispatched.summaries);
    outcome.removed.push(...dispatched.removed);
    if (dispatched.heldAt !== undefined) {
      if (heldAt === undefined) run.totals.bucketsHeld += 1;
      heldAt = Math.min(heldAt ?? dispatched.heldAt, dispatched.heldAt);
    }
    target = Math.max(
      target,
      heldAt === undefined ? page.completeThrough : Math.min(page.completeThrough, heldAt - 1),
    );
    if (!page.next) {
      await moveCursor();
      return;
    }
    if (page.notes.length > 0 && !(await moveCursor())) return;
    from = page.next;
  }
}
