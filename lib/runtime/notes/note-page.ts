import type { EpochMs } from '../../core/clock';
import { mapWithConcurrency } from '../../core/concurrency';
import type { DueNoteEntry } from '../../core/model/due-note';
import type { Schedule } from '../../core/model/schedule';
import type { PlannedFire } from '../../core/planning';
import { type NoteChunkPlan, planNoteChunk } from '../../core/planning/note-chunks';
import type { DueNote } from '../../core/ports/due-notes';
import type { JobMessage } from '../../core/ports/job-queue';
import { compileTrigger } from '../../core/triggers';
import type { Logger } from '../observability/logger';
import { type DispatchDeps, type DispatchSummary, sendOrReportAllFailed } from '../scheduling/dispatch';
import { scheduleFireMessage } from '../scheduling/job-messages';
import type { NoteRun } from './note-run';

/** One schedule's notes on a page: planned once, from the earliest, as read for its id, version and creation. */
interface NoteGroup {
  note: DueNote;
  /** The earliest bucket holding one of its notes: a failure holds the cursor before it. */
  firstBucket: number;
  count: number;
}

interface NotePlan {
  group: NoteGroup;
  schedule: Schedule;
  plan: NoteChunkPlan;
  messages: JobMessage[];
}

export interface PageOutcome {
  /** The first bucket of the page with a failure in it: the cursor must stay before it. */
  heldAt?: number;
  summaries: DispatchSummary[];
}

/**
 * The fires a plan of this tick covered for one schedule: from its note's next fire to its successor's
 * (`Infinity` when its trigger ended). A later page's note inside that span is a chain behind the one
 * planned, and is left out; one at or after its end (the successor itself, once its bucket started
 * during a long tick) is read as any other.
 */
export interface PlannedSpan {
  from: EpochMs;
  until: EpochMs;
}

export interface PageOptions {
  concurrency: number;
  logger: Logger;
}

/**
 * Dispatches one page of a shard's notes: checks each against its schedule's item (read strongly
 * consistent), plans the ones that stand as chunks, sends their fires together, then writes their
 * successor notes and finishes the schedules whose trigger ended. A schedule whose plan raised or whose
 * send failed has its note written again a few buckets on (retried alone, with the same job ids). Nothing
 * here moves the cursor: the caller moves it to before `heldAt`, the first bucket with a failure that
 * could not be noted again (a write that raised, an item read that failed), so the next tick redoes
 * that bucket with the same job ids.
 * `planned`: what this tick already planned per schedule, across the pages of a shard.
 */
export async function dispatchNotePage(
  deps: DispatchDeps,
  run: NoteRun,
  notes: readonly DueNote[],
  planned: Map<string, PlannedSpan>,
  options: PageOptions,
): Promise<PageOutcome> {
  const outcome: PageOutcome = { summaries: [] };
  const hold = (bucket: number) => {
    outcome.heldAt = Math.min(outcome.heldAt ?? bucket, bucket);
  };
  run.totals.notesRead += notes.length;
  const groups = groupNotes(notes);
  if (groups.length === 0) return outcome;
  let items: Map<string, Schedule>;
  try {
    items = await deps.scheduleStore.readSchedules([...new Set(groups.map((g) => g.note.entry.scheduleId))]);
  } catch (error) {
    options.logger.error('schedules of due notes could not be read; the next tick reads their notes again', {
      error,
    });
    for (const group of groups) hold(group.firstBucket);
    return outcome;
  }
  const now = deps.clock.now();
  const plans: NotePlan[] = [];
  // Notes of schedules that failed on their own (a plan that raised, a send the queue refused): noted
  // again a few buckets on, so the next tick retries them alone instead of the whole shard holding its
  // cursor (and sending every later bucket again) behind one schedule that keeps failing.
  const retried: NoteGroup[] = [];
  for (const group of groups) {
    const { entry } = group.note;
    const schedule = items.get(entry.scheduleId);
    const key = identityKey(entry);
    const span = planned.get(key);
    const covered = span !== undefined && span.from <= entry.nextFireAt && entry.nextFireAt < span.until;
    if (!standsFor(schedule, entry) || covered) {
      run.totals.staleNotes += group.count;
      continue;
    }
    try {
      const p = planGroup(deps, run, group, schedule, now);
      plans.push(p);
      planned.set(key, {
        from: entry.nextFireAt,
        until: p.plan.successor?.nextFireAt ?? Number.POSITIVE_INFINITY,
      });
    } catch (error) {
      options.logger.error('due note could not be planned; the next tick reads it again', {
        scheduleId: entry.scheduleId,
        error,
      });
      retried.push(group);
    }
  }
  const failed = new Set(
    await sendOrReportAllFailed(
      deps.queue,
      plans.flatMap((p) => p.messages),
    ),
  );
  const sent = plans.filter((p) => {
    if (!p.messages.some((message) => failed.has(message.job.id))) return true;
    retried.push(p.group);
    return false;
  });
  for (const p of plans) outcome.summaries.push(summaryOf(p, failed, now));
  const continuing = sent.filter((p) => p.plan.successor !== null);
  const [written, finished] = await Promise.all([
    run.write(
      deps.scheduleStore,
      [...continuing.map(successorOf), ...retried.map((group) => group.note)],
      deps.clock,
    ),
    finishEach(
      deps,
      sent.filter((p) => p.plan.successor === null),
      options,
      hold,
    ),
  ]);
  if (written.error !== undefined) {
    options.logger.error('successor notes could not be written; the next tick redoes their buckets', {
      notes: written.failed.length,
      error: written.error,
    });
  }
  const unwritten = new Set(written.failed.map((note) => identityKey(note.entry)));
  for (const group of [...continuing.map((p) => p.group), ...retried]) {
    if (unwritten.has(identityKey(group.note.entry))) hold(group.firstBucket);
  }
  run.totals.notesRetried += retried.filter((group) => !unwritten.has(identityKey(group.note.entry))).length;
  for (const summary of outcome.summaries) {
    const schedule = finished.get(summary.scheduleId);
    if (schedule) summary.finished = schedule;
  }
  return outcome;
}

/**
 * A note stands only while its schedule's item agrees (ADR 0007): it exists at the note's version and
 * creation, is not paused, has no `max_runs`, and is either on notes or still in the due index at that
 * version (a conversion in flight, or one that crashed before its write: skipping the note could lose
 * the schedule). A finished item (no next fire, not on notes) does not stand.
 */
export function standsFor(schedule: Schedule | undefined, entry: DueNoteEntry): schedule is Schedule {
  return (
    schedule !== undefined &&
    schedule.version === entry.version &&
    schedule.createdAt === entry.createdAt &&
    !schedule.paused &&
    schedule.maxRuns === null &&
    (schedule.onNotes === true || schedule.nextFireAt !== null)
  );
}

function identityKey(entry: DueNoteEntry): string {
  return `${entry.scheduleId} ${entry.version} ${entry.createdAt}`;
}

/** Notes grouped by schedule, version and creation, each from its earliest next fire (chains meet there). */
function groupNotes(notes: readonly DueNote[]): NoteGroup[] {
  const groups = new Map<string, NoteGroup>();
  for (const note of notes) {
    const key = identityKey(note.entry);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { note, firstBucket: note.bucket, count: 1 });
      continue;
    }
    group.count += 1;
    group.firstBucket = Math.min(group.firstBucket, note.bucket);
    if (note.entry.nextFireAt < group.note.entry.nextFireAt) group.note = note;
  }
  return [...groups.values()];
}

function planGroup(
  deps: DispatchDeps,
  run: NoteRun,
  group: NoteGroup,
  schedule: Schedule,
  now: EpochMs,
): NotePlan {
  const plan = planNoteChunk({
    scheduleId: schedule.id,
    source: compileTrigger(schedule.trigger),
    nextFireAt: group.note.entry.nextFireAt,
    policies: {
      coalesce: schedule.coalesce,
      misfireGraceSeconds: schedule.misfireGraceSeconds,
      maxJitterSeconds: schedule.maxJitterSeconds,
    },
    grid: run.grid,
    maxFires: deps.limits.maxFiresPerPlan,
    now,
    random: deps.random,
  });
  const finalFire = plan.successor === null ? plan.fires.at(-1) : undefined;
  const messages = plan.fires.map((fire) => scheduleFireMessage(schedule, fire, now, fire === finalFire));
  return { group, schedule, plan, messages };
}

/** What the note's chain has dispatched once this plan's fires are sent. */
function advancedEntry(p: NotePlan): Pick<DueNoteEntry, 'runs' | 'lastFireAt'> {
  const { entry } = p.group.note;
  const last = p.plan.fires.reduce<EpochMs | null>(
    (latest, fire) => Math.max(latest ?? 0, fire.fireTime),
    null,
  );
  return { runs: entry.runs + p.plan.fires.length, lastFireAt: last ?? entry.lastFireAt };
}

function successorOf(p: NotePlan): DueNote {
  const successor = p.plan.successor as { nextFireAt: EpochMs; bucket: number };
  return {
    bucket: successor.bucket,
    entry: { ...p.group.note.entry, nextFireAt: successor.nextFireAt, ...advancedEntry(p) },
  };
}

/**
 * Finishes each schedule whose trigger ended, as the index path does; the schedules finished by this
 * write, by id. A finish refused (changed, or still in the due index: the index path finishes it) is not
 * a failure; one that raised holds its bucket.
 */
async function finishEach(
  deps: DispatchDeps,
  ending: readonly NotePlan[],
  options: PageOptions,
  hold: (bucket: number) => void,
): Promise<Map<string, Schedule>> {
  const finished = new Map<string, Schedule>();
  await mapWithConcurrency(ending, options.concurrency, async (p) => {
    const { schedule } = p;
    const advanced = advancedEntry(p);
    try {
      const applied = await deps.scheduleStore.finishScheduleOnNotes({
        id: schedule.id,
        seenVersion: schedule.version,
        seenCreatedAt: schedule.createdAt,
        ...advanced,
      });
      if (!applied) return;
      const { onNotes: _onNotes, ...rest } = schedule;
      finished.set(schedule.id, {
        ...rest,
        nextFireAt: null,
        ...advanced,
        leaseOwner: null,
        leaseUntil: null,
      });
    } catch (error) {
      options.logger.error(
        'schedule whose trigger ended could not be finished; the next tick redoes its note',
        {
          scheduleId: schedule.id,
          error,
        },
      );
      hold(p.group.firstBucket);
    }
  });
  return finished;
}

function summaryOf(p: NotePlan, failed: ReadonlySet<string>, plannedAt: EpochMs): DispatchSummary {
  const sent: PlannedFire[] = p.plan.fires.filter((fire) => !failed.has(fire.jobId));
  return {
    scheduleId: p.schedule.id,
    jobsSent: sent.length,
    sendFailures: p.plan.fires.length - sent.length,
    release: 'released',
    nextFireAt: p.plan.successor?.nextFireAt ?? null,
    fireLagMs: sent.filter((fire) => fire.runAt < plannedAt).map((fire) => plannedAt - fire.runAt),
  };
}
