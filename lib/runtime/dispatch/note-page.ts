import type { EpochMs } from '../../core/clock';
import { mapWithConcurrency } from '../../core/concurrency';
import type { DueNoteEntry } from '../../core/model/due-note';
import { scheduleFireMessage } from '../../core/model/job-messages';
import type { Schedule } from '../../core/model/schedule';
import type { PlannedFire } from '../../core/planning';
import { closes, closingNote } from '../../core/planning/closing-notes';
import { type NoteChunkPlan, planNoteChunk } from '../../core/planning/note-chunks';
import type { DueNote } from '../../core/ports/due-notes';
import type { JobMessage } from '../../core/ports/job-queue';
import { compileTrigger } from '../../core/triggers';
import type { DispatchDeps, DispatchLogger, DispatchSummary } from './dispatch-deps';
import { removeIfLastFireEnded } from './finished-cleanup';
import type { NoteRun } from './note-run';
import { noteAndSendFires } from './send-fires';

/** One chain's notes on a page: planned once, from the earliest. */
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
  /** Its chain ends with this plan (no successor): its schedule is finished before the fires go out. */
  ending: boolean;
  /** The job of the chain's last fire, when it ends with this plan: sent after the plan's other fires. */
  finalJobId?: string;
}

export interface PageOutcome {
  /** The first bucket of the page with a failure in it: the cursor must stay before it. */
  heldAt?: number;
  summaries: DispatchSummary[];
  /** Finished schedules its closing notes removed (ADR 0011), for their `schedule.removed` events. */
  removed: Schedule[];
}

/**
 * The fires a plan of this tick covered for one chain: from its note's next fire to its successor's
 * (`Infinity` when the chain ended). A later page's note inside that span is a chain behind the one
 * planned, and is left out; one at or after its end (the successor itself, once its bucket started
 * during a long tick) is read as any other.
 */
export interface PlannedSpan {
  from: EpochMs;
  until: EpochMs;
}

export interface PageOptions {
  concurrency: number;
  logger: DispatchLogger;
}

/**
 * Dispatches one page of a shard's notes: checks each against its schedule's item (read strongly
 * consistent), plans the ones that stand as chunks, finishes the schedules whose chain ends with this
 * plan (before their last fires are sent: ADR 0008), notes and sends the fires together, then writes
 * the successor notes. A schedule whose plan raised or whose send failed has its note written again a
 * few buckets on (retried alone, with the same job ids). Nothing here moves the cursor: the caller
 * moves it to before `heldAt`, the first bucket with a failure that could not be noted again (a write
 * that raised, an item read that failed), so the next tick redoes that bucket with the same job ids.
 * `planned`: what this tick already planned per chain, across the pages of a shard.
 */
export async function dispatchNotePage(
  deps: DispatchDeps,
  run: NoteRun,
  notes: readonly DueNote[],
  planned: Map<string, PlannedSpan>,
  options: PageOptions,
): Promise<PageOutcome> {
  const outcome: PageOutcome = { summaries: [], removed: [] };
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
  const closing: ClosingGroup[] = [];
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
    if (closes(schedule, entry)) {
      closing.push({ group, schedule });
      continue;
    }
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
  // A chain that ends here finishes its schedule before its last fires go out: an admin call that ends
  // the last job (cancel_job), however soon, finds its schedule finished and removes it (ADR 0011).
  const finished = await finishEach(deps, plans, options, hold);
  const toSend = plans.filter((p) => !p.ending || finished.has(p.schedule.id));
  const failed = await sendFinalFiresLast(deps, toSend);
  const sent = toSend.filter((p) => {
    if (!p.messages.some((message) => failed.has(message.job.id))) return true;
    retried.push(p.group);
    return false;
  });
  for (const p of toSend) {
    const summary = summaryOf(p, failed, now);
    const schedule = finished.get(p.schedule.id);
    if (schedule && p.schedule.nextFireAt !== null) summary.finished = schedule;
    outcome.summaries.push(summary);
  }
  const continuing = sent.filter((p) => p.plan.successor !== null);
  const closingNotes = sent.flatMap((p) => closingNoteOf(run, finished.get(p.schedule.id), p, now));
  const closed = await closeEach(deps, run, closing, options);
  outcome.removed.push(...closed.removed);
  retried.push(...closed.failed);
  const written = await run.write(
    deps.scheduleStore,
    [...continuing.map(successorOf), ...closingNotes, ...closed.again, ...retried.map((group) => group.note)],
    deps.clock,
  );
  if (written.error !== undefined) {
    options.logger.error('successor notes could not be written; the next tick redoes their buckets', {
      notes: written.failed.length,
      error: written.error,
    });
  }
  const unwritten = new Set(written.failed.map((note) => identityKey(note.entry)));
  const noted = [...continuing, ...sent.filter((p) => p.ending)].map((p) => p.group);
  for (const group of [...noted, ...closing.map((c) => c.group), ...retried]) {
    if (unwritten.has(identityKey(group.note.entry))) hold(group.firstBucket);
  }
  run.totals.notesRetried += retried.filter((group) => !unwritten.has(identityKey(group.note.entry))).length;
  return outcome;
}

/**
 * A note stands only while its schedule's item names its chain and is not paused (ADR 0008). A finished
 * item keeps the chain that ended it: that chain's last note still stands for the fires up to its last
 * one (its reader finished the item before it sent them, and may have died before it did).
 */
export function standsFor(schedule: Schedule | undefined, entry: DueNoteEntry): schedule is Schedule {
  if (schedule === undefined || schedule.chain !== entry.chain || schedule.paused) return false;
  if (schedule.nextFireAt !== null) return true;
  return schedule.lastFireAt !== null && entry.nextFireAt <= schedule.lastFireAt;
}

function identityKey(entry: DueNoteEntry): string {
  return `${entry.scheduleId} ${entry.chain}`;
}

/** Notes grouped by schedule and chain, each from its earliest next fire (copies of a chain meet there). */
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
  const { entry } = group.note;
  // Finished already (this note's reader finished it and died before sending): only its last fires.
  const endsAt = schedule.nextFireAt === null ? (schedule.lastFireAt ?? undefined) : undefined;
  const plan = planNoteChunk({
    scheduleId: schedule.id,
    source: compileTrigger(schedule.trigger),
    nextFireAt: entry.nextFireAt,
    policies: {
      coalesce: schedule.coalesce,
      misfireGraceSeconds: schedule.misfireGraceSeconds,
      maxJitterSeconds: schedule.maxJitterSeconds,
    },
    grid: run.grid,
    maxFires: deps.maxFiresPerPlan,
    ...(schedule.maxRuns !== null && { runsLeft: schedule.maxRuns - entry.runs }),
    ...(endsAt !== undefined && { endsAt }),
    now,
    random: deps.random,
  });
  const ending = plan.successor === null;
  const finalJobId = ending ? plan.fires.at(-1)?.jobId : undefined;
  const messages = plan.fires.map((fire) => scheduleFireMessage(schedule, fire, now));
  return { group, schedule, plan, messages, ending, ...(finalJobId !== undefined && { finalJobId }) };
}

/**
 * Sends the plans' fires, the final fire of a chain that ends only once every other fire of its plan
 * went: once its job ended, an admin call removes the finished schedule at once (ADR 0011), and a fire
 * of the plan whose send failed (its note written again to send it later) would then find no schedule:
 * it would never run. Resolves with the ids not sent (a final fire held back among them).
 */
async function sendFinalFiresLast(deps: DispatchDeps, plans: readonly NotePlan[]): Promise<Set<string>> {
  const isFinal = (p: NotePlan, message: JobMessage) => message.job.id === p.finalJobId;
  const failed = await noteAndSendFires(
    deps,
    plans.flatMap((p) => p.messages.filter((message) => !isFinal(p, message))),
  );
  const ready: JobMessage[] = [];
  for (const p of plans) {
    const finals = p.messages.filter((message) => isFinal(p, message));
    const othersSent = p.messages.every((message) => isFinal(p, message) || !failed.has(message.job.id));
    if (othersSent) ready.push(...finals);
    else for (const message of finals) failed.add(message.job.id);
  }
  for (const id of await noteAndSendFires(deps, ready)) failed.add(id);
  return failed;
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
 * Finishes each schedule whose chain ends with its plan, before its last fires are sent; the schedules
 * whose fires may be sent (finished by this write, by an earlier one, or finished before this read), by
 * id. A finish refused (the schedule was changed, paused or removed) sends nothing: its change decides
 * those fires. One that raised holds its bucket and sends nothing either.
 */
async function finishEach(
  deps: DispatchDeps,
  plans: readonly NotePlan[],
  options: PageOptions,
  hold: (bucket: number) => void,
): Promise<Map<string, Schedule>> {
  const finished = new Map<string, Schedule>();
  await mapWithConcurrency(
    plans.filter((p) => p.ending),
    options.concurrency,
    async (p) => {
      const { schedule } = p;
      const advanced = advancedEntry(p);
      if (schedule.nextFireAt === null) {
        finished.set(schedule.id, schedule);
        return;
      }
      try {
        const outcome = await deps.scheduleStore.finishSchedule({
          id: schedule.id,
          chain: p.group.note.entry.chain,
          ...advanced,
        });
        if (outcome === 'finished') finished.set(schedule.id, { ...schedule, nextFireAt: null, ...advanced });
      } catch (error) {
        options.logger.error(
          'schedule whose chain ended could not be finished; the next tick redoes its note',
          {
            scheduleId: schedule.id,
            error,
          },
        );
        hold(p.group.firstBucket);
      }
    },
  );
  return finished;
}

function summaryOf(p: NotePlan, failed: ReadonlySet<string>, plannedAt: EpochMs): DispatchSummary {
  const sent: PlannedFire[] = p.plan.fires.filter((fire) => !failed.has(fire.jobId));
  return {
    scheduleId: p.schedule.id,
    jobsSent: sent.length,
    sendFailures: p.plan.fires.length - sent.length,
    nextFireAt: p.plan.successor?.nextFireAt ?? null,
    fireLagMs: sent.filter((fire) => fire.runAt < plannedAt).map((fire) => plannedAt - fire.runAt),
  };
}

/** A closing note read on a page, with its schedule as read. */
interface ClosingGroup {
  group: NoteGroup;
  schedule: Schedule;
}

/**
 * The closing note a chain that ended with this plan leaves (ADR 0011), when its finished schedule is
 * removed after its last fire (not kept, and it fired at all).
 */
function closingNoteOf(run: NoteRun, finished: Schedule | undefined, p: NotePlan, now: EpochMs): DueNote[] {
  if (!p.ending || !finished || finished.keepFinished || finished.lastFireAt === null) return [];
  const { scheduleId, chain } = p.group.note.entry;
  return [
    closingNote(run.grid, { scheduleId, chain, runs: finished.runs, lastFireAt: finished.lastFireAt }, now),
  ];
}

/**
 * Reads each closing note: removes its finished schedule once the job of its last fire has ended, or
 * notes it again for later (`closingNote`: the longer that fire is past, the longer it waits). A
 * removal that raised is retried as any failed note.
 */
async function closeEach(
  deps: DispatchDeps,
  run: NoteRun,
  closing: readonly ClosingGroup[],
  options: PageOptions,
): Promise<{ removed: Schedule[]; again: DueNote[]; failed: NoteGroup[] }> {
  const outcome = { removed: [] as Schedule[], again: [] as DueNote[], failed: [] as NoteGroup[] };
  await mapWithConcurrency(closing, options.concurrency, async ({ group, schedule }) => {
    try {
      const removed = await removeIfLastFireEnded(deps, schedule, null);
      if (removed) {
        outcome.removed.push(removed);
        return;
      }
      const { scheduleId, chain, runs } = group.note.entry;
      const lastFireAt = schedule.lastFireAt as EpochMs; // a closing note's schedule has fired (`closes`)
      outcome.again.push(closingNote(run.grid, { scheduleId, chain, runs, lastFireAt }, deps.clock.now()));
    } catch (error) {
      options.logger.warn('finished schedule could not be removed; its closing note is read again', {
        scheduleId: schedule.id,
        error,
      });
      outcome.failed.push(group);
    }
  });
  return outcome;
}
