import { mapWithConcurrency } from '../../core/concurrency';
import { naturalBucket } from '../../core/planning/note-chunks';
import type { DueNote } from '../../core/ports/due-notes';
import { compileTrigger } from '../../core/triggers';
import type { Logger } from '../observability/logger';
import {
  type DispatchDeps,
  type DispatchSummary,
  dispatchSummary,
  type PlannedDispatch,
  resumePoint,
} from '../scheduling/dispatch';
import type { NoteRun } from './note-run';

/**
 * Whether a lease-less plan of the index path hands its schedule over to notes (ADR 0007) instead of
 * moving its item on: every message was sent and the plan leaves a next fire. A plan that finishes the
 * schedule, or with send failures, takes today's path.
 */
export function convertsToNotes(plan: PlannedDispatch, failed: ReadonlySet<string>): boolean {
  return (
    plan.schedule.maxRuns === null &&
    plan.schedule.nextFireAt !== null &&
    plan.nextFireAt !== null &&
    !plan.messages.some((message) => failed.has(message.job.id))
  );
}

/** The note a converted plan leaves: its next fire, in its bucket by the grid (placed later if need be). */
export function successorNoteOf(plan: PlannedDispatch, run: NoteRun): DueNote {
  const { schedule } = plan;
  const nextFireAt = plan.nextFireAt as number;
  return {
    bucket: naturalBucket(run.grid, compileTrigger(schedule.trigger), nextFireAt),
    entry: {
      scheduleId: schedule.id,
      version: schedule.version,
      createdAt: schedule.createdAt,
      nextFireAt,
      runs: schedule.runs + plan.fires.length,
      lastFireAt: plan.lastFireAt ?? schedule.lastFireAt,
    },
  };
}

/** A plan handed over (or not) and its summary: undefined when its conversion raised. */
export interface Conversion {
  plan: PlannedDispatch;
  summary: DispatchSummary | undefined;
}

export interface ConversionOptions {
  concurrency: number;
  logger: Logger;
}

/**
 * Hands sent plans over to notes: their successor notes first, in one write for the round, then each
 * schedule's conversion, conditional on its version, creation time and next fire as read. A conversion
 * refused (a concurrent change or advance) leaves a note that is stale or meets the index path's chain:
 * harmless either way. Plans whose notes could not be written are returned to be moved on as today.
 */
export async function convertEachToNotes(
  deps: Pick<DispatchDeps, 'scheduleStore' | 'clock'>,
  plans: readonly PlannedDispatch[],
  failed: ReadonlySet<string>,
  run: NoteRun,
  options: ConversionOptions,
): Promise<{ converted: Conversion[]; notWritten: PlannedDispatch[] }> {
  if (plans.length === 0) return { converted: [], notWritten: [] };
  const notes = plans.map((plan) => successorNoteOf(plan, run));
  const written = await run.write(deps.scheduleStore, notes, deps.clock);
  if (written.error !== undefined) {
    options.logger.warn('successor notes could not be written; their schedules are moved on as before', {
      schedules: written.failed.length,
      error: written.error,
    });
  }
  const unwritten = new Set(written.failed.map((note) => note.entry.scheduleId));
  const toConvert = plans.filter((plan) => !unwritten.has(plan.schedule.id));
  const converted = await mapWithConcurrency(toConvert, options.concurrency, async (plan) => {
    const { schedule } = plan;
    const resume = resumePoint(plan, failed);
    try {
      const converted = await deps.scheduleStore.convertScheduleToNotes({
        id: schedule.id,
        seenVersion: schedule.version,
        seenCreatedAt: schedule.createdAt,
        seenNextFireAt: schedule.nextFireAt as number,
        runs: schedule.runs + resume.firesDispatched,
        lastFireAt: resume.lastFireAt,
        now: deps.clock.now(),
      });
      if (converted) run.totals.conversions += 1;
      return { plan, summary: dispatchSummary(plan, failed, converted ? 'released' : 'lease_lost', resume) };
    } catch (error) {
      options.logger.error('schedule could not be converted to notes; the next tick sends its fires again', {
        scheduleId: schedule.id,
        error,
      });
      return { plan, summary: undefined };
    }
  });
  return { converted, notWritten: plans.filter((plan) => unwritten.has(plan.schedule.id)) };
}
