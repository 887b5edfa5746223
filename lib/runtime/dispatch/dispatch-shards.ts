import type { EpochMs } from '../../core/clock';
import type { Schedule } from '../../core/model/schedule';
import { type SundialEvent, scheduleEvent } from '../../core/ports/event-publisher';
import type { DispatchDeps, DispatchLogger, DispatchSummary } from './dispatch-deps';
import { addNoteTotals, emptyNoteTotals, NoteRun, type NoteTotals } from './note-run';
import { readDueNotesOfShards } from './read-shards';

export interface DispatchShardsOptions {
  /** Names this dispatch's note writes (the tick's owner). */
  owner: string;
  /** The shards it reads (its share of the tick's leased shards, ADR 0006). */
  shards: readonly number[];
  /** Stop reading more pages at this instant (the dispatcher's budget). */
  stopAcquiringAt: number;
  /** Store calls in flight at once (shards read at once, finishes written at once). */
  concurrency: number;
  logger: DispatchLogger;
}

export interface DispatchTotals {
  schedulesProcessed: number;
  jobsEnqueued: number;
  sendFailures: number;
  errors: number;
  fireLagMs: number[];
  budgetExhausted: boolean;
  /** The schedules this dispatch finished (their chains ended), for their `schedule.finished` events. */
  finished: Schedule[];
  /** The finished schedules its closing notes removed (ADR 0011), for their `schedule.removed` events. */
  removed: Schedule[];
  notes: NoteTotals;
}

export function emptyDispatchTotals(): DispatchTotals {
  return {
    schedulesProcessed: 0,
    jobsEnqueued: 0,
    sendFailures: 0,
    errors: 0,
    fireLagMs: [],
    budgetExhausted: false,
    finished: [],
    removed: [],
    notes: emptyNoteTotals(),
  };
}

/** `into` with `from` added (the totals of a tick's dispatchers). */
export function addDispatchTotals(into: DispatchTotals, from: DispatchTotals): DispatchTotals {
  into.schedulesProcessed += from.schedulesProcessed;
  into.jobsEnqueued += from.jobsEnqueued;
  into.sendFailures += from.sendFailures;
  into.errors += from.errors;
  into.fireLagMs.push(...from.fireLagMs);
  into.budgetExhausted ||= from.budgetExhausted;
  into.finished.push(...from.finished);
  into.removed.push(...from.removed);
  addNoteTotals(into.notes, from.notes);
  return into;
}

/**
 * Moves on every schedule of the given shards by its notes (ADR 0007, 0008), the one way any schedule
 * is dispatched: each shard's cursor is read (or created) first, then its notes after the cursor are
 * read page by page until every bucket that has started is read or the budget is spent.
 */
export async function dispatchShards(
  deps: DispatchDeps,
  options: DispatchShardsOptions,
): Promise<DispatchTotals> {
  const totals = emptyDispatchTotals();
  const run = new NoteRun(options.owner, options.shards);
  await run.prepareCursors(deps.scheduleStore, deps.clock.now(), options.concurrency, options.logger);
  const read = await readDueNotesOfShards(deps, run, options);
  for (const summary of read.summaries) addSummary(totals, summary);
  totals.removed.push(...read.removed);
  totals.errors += read.errors;
  totals.budgetExhausted = read.budgetExhausted;
  totals.notes = run.totals;
  return totals;
}

/** The events of what a dispatch did to schedules: `schedule.finished`, and `schedule.removed` (reason `finished`). */
export function dispatchEvents(
  finished: readonly Schedule[],
  removed: readonly Schedule[],
  at: EpochMs,
): SundialEvent[] {
  return [
    ...finished.map((schedule) => scheduleEvent('schedule.finished', schedule, at)),
    ...removed.map((schedule) => scheduleEvent('schedule.removed', schedule, at, 'finished')),
  ];
}

function addSummary(totals: DispatchTotals, summary: DispatchSummary): void {
  totals.schedulesProcessed += 1;
  totals.jobsEnqueued += summary.jobsSent;
  totals.sendFailures += summary.sendFailures;
  totals.fireLagMs.push(...summary.fireLagMs);
  if (summary.finished) totals.finished.push(summary.finished);
}
