import { mapWithConcurrency } from '../../core/concurrency';
import type { Schedule } from '../../core/model/schedule';
import { dueWindowMs } from '../../core/planning';
import { convertEachToNotes, convertsToNotes } from '../notes/convert-on-advance';
import { readDueNotesOfShards } from '../notes/note-reader';
import { type DueNoteOptions, NoteRun, type NoteTotals } from '../notes/note-run';
import type { Logger } from '../observability/logger';
import {
  type DispatchDeps,
  type DispatchSummary,
  type PlannedDispatch,
  planDispatch,
  releaseDispatched,
  sendOrReportAllFailed,
} from '../scheduling/dispatch';
import { advanceDispatched, needsLease } from '../scheduling/dispatch-unleased';

export interface DispatchDueOptions {
  owner: string;
  /** Stop acquiring more schedules at this instant (the tick's budget). */
  stopAcquiringAt: number;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
  /**
   * Rounds dispatched at once (1 when absent): the next round reads while earlier ones send and move
   * their schedules on, leaving out the schedules they hold.
   */
  roundsInFlight?: number;
  logger: Logger;
  /** Only these due-index shards (a dispatcher's share, ADR 0006); every shard when absent. */
  shards?: readonly number[];
  /**
   * Due notes (ADR 0007): the notes of the same shards are read alongside the index, and with `convert`
   * (`config.dueNotes`) the index path hands the schedules it moves on over to notes. Absent: nothing
   * reads or writes notes (dispatches outside the tick's).
   */
  dueNotes?: DueNoteOptions;
}

/** The options of a dispatch's rounds: with its note run when notes are on. */
interface RoundOptions extends DispatchDueOptions {
  noteRun?: NoteRun;
}

export interface DispatchDueTotals {
  schedulesProcessed: number;
  jobsEnqueued: number;
  sendFailures: number;
  leasesLost: number;
  errors: number;
  fireLagMs: number[];
  budgetExhausted: boolean;
  /** The schedules this tick finished (as released), for their `schedule.finished` events. */
  finished: Schedule[];
  /** What was done with due notes; present only when they are on. */
  notes?: NoteTotals;
}

export function emptyDispatchTotals(): DispatchDueTotals {
  return {
    schedulesProcessed: 0,
    jobsEnqueued: 0,
    sendFailures: 0,
    leasesLost: 0,
    errors: 0,
    fireLagMs: [],
    budgetExhausted: false,
    finished: [],
  };
}

/** A planned schedule and the job ids (of its round) the queue did not take. */
interface SentPlan {
  plan: PlannedDispatch;
  failed: ReadonlySet<string>;
}

/**
 * Reads due schedules in rounds of `batchSize` and dispatches them, until a round reads none, the budget
 * is spent, or the queue fails as a whole (then the rest waits for the next tick).
 *
 * A schedule is sent and moved on with one conditional write, without a lease, missed fires included
 * (ADR 0005); one with `max_runs` is leased, sent and released. One schedule's
 * failure holds back no other: a schedule that fails to plan or to move on is left for the next tick
 * (a leased one keeps its lease until it expires); a leased one whose messages failed is released at its
 * first unsent fire only after the last round, so this tick cannot lease it again.
 */
export async function dispatchDueSchedules(
  deps: DispatchDeps,
  options: DispatchDueOptions,
): Promise<DispatchDueTotals> {
  const totals = emptyDispatchTotals();
  const releaseAfterRounds: SentPlan[] = [];
  const noteRun = options.dueNotes && new NoteRun(options.dueNotes, options.owner, options.shards);
  const withNotes: RoundOptions = { ...options, ...(noteRun && { noteRun }) };
  try {
    await noteRun?.prepareCursors(deps.scheduleStore, deps.clock.now(), options.concurrency, options.logger);
    // Both settle before the dispatch ends, even when one fails: nothing of it still writes afterwards.
    const [rounds, notes] = await Promise.allSettled([
      dispatchRounds(deps, withNotes, totals, releaseAfterRounds),
      noteRun && readDueNotesOfShards(deps, noteRun, options),
    ]);
    if (notes.status === 'fulfilled' && notes.value) {
      addSummaries(totals, notes.value.summaries);
      totals.errors += notes.value.errors;
      totals.budgetExhausted ||= notes.value.budgetExhausted;
    }
    if (rounds.status === 'rejected') throw rounds.reason;
    if (notes.status === 'rejected') throw notes.reason;
  } finally {
    addSummaries(totals, await releaseEach(deps, releaseAfterRounds, options));
    if (noteRun && (noteRun.convert || noteRun.cursors.size > 0)) totals.notes = noteRun.totals;
  }
  return totals;
}

/**
 * Up to `roundsInFlight` rounds run at once. A round holds back only its own schedules: a send waiting for
 * its phases (or slow writes) no longer holds back the next round's fires. The next round reads without
 * the schedules of the rounds in flight (they would be sent twice and their moves on refused), and an
 * empty read ends the loop only when no round is in flight (a round may leave a schedule still due, as
 * one with more fires in the window than one plan sends).
 */
async function dispatchRounds(
  deps: DispatchDeps,
  options: RoundOptions,
  totals: DispatchDueTotals,
  releaseAfterRounds: SentPlan[],
): Promise<void> {
  // Schedules this tick could not move on stay in the due index with no lease to hide them: later rounds
  // leave them out, or the loop would read (and send) them again and again.
  const leftForNextTick = new Set<string>();
  const heldByRounds = new Set<string>();
  const rounds = new Set<Promise<void>>();
  const maxRounds = Math.max(1, options.roundsInFlight ?? 1);
  let queueFailed = false;
  let roundError: { error: unknown } | undefined;
  const startRound = (read: readonly Schedule[]) => {
    for (const schedule of read) heldByRounds.add(schedule.id);
    const running: Promise<void> = dispatchRound(deps, read, options, leftForNextTick)
      .then((round) => {
        totals.errors += round.failures;
        addSummaries(totals, round.summaries);
        releaseAfterRounds.push(...round.withFailures);
        if (round.queueFailed) queueFailed = true;
      })
      .catch((error: unknown) => {
        roundError ??= { error };
      })
      .finally(() => {
        for (const schedule of read) heldByRounds.delete(schedule.id);
        rounds.delete(running);
      });
    rounds.add(running);
  };
  try {
    for (;;) {
      if (rounds.size >= maxRounds) await Promise.race(rounds);
      if (queueFailed || roundError) break;
      const now = deps.clock.now();
      if (now >= options.stopAcquiringAt) {
        totals.budgetExhausted = true;
        break;
      }
      const read = await deps.scheduleStore.readDueSchedules({
        now,
        dueBefore: now + dueWindowMs(deps.limits),
        limit: options.batchSize,
        skip: heldByRounds.size === 0 ? leftForNextTick : new Set([...leftForNextTick, ...heldByRounds]),
        ...(options.shards && { shards: options.shards }),
      });
      // A short round does not mean nothing is left: schedules leased by an overlapping tick were skipped,
      // and they may be released (with fires still due) before that tick reads again. Only an empty read
      // with no round in flight ends the loop.
      if (read.length > 0) startRound(read);
      else if (rounds.size > 0) await Promise.race(rounds);
      else break;
    }
  } finally {
    await Promise.all(rounds);
  }
  if (roundError) throw roundError.error;
}

interface Round {
  /** Schedules that could not be planned or leased. */
  failures: number;
  /** Of the schedules moved on in this round (undefined: the write failed). */
  summaries: (DispatchSummary | undefined)[];
  /** Leased schedules some of whose messages were not sent. */
  withFailures: SentPlan[];
  /** Nothing was sent though messages of several schedules were tried: the queue itself is failing. */
  queueFailed: boolean;
}

/**
 * Dispatches the schedules read in one round: plans each, leases those whose plan needs it (`max_runs`:
 * `needsLease`) and plans them again as leased, sends the messages of all of them together (a batch holds messages
 * of any schedules: a schedule with one fire in the window does not cost a request of its own), then
 * moves on the lease-less ones and releases the leased ones sent in full (at most `concurrency` at a
 * time).
 */
async function dispatchRound(
  deps: DispatchDeps,
  read: readonly Schedule[],
  options: RoundOptions,
  leftForNextTick: Set<string>,
): Promise<Round> {
  const planned = planEach(deps, read, options, leftForNextTick);
  const readPlans = planned.filter((plan) => {
    if (!waitsBeyondWindow(plan)) return true;
    leftForNextTick.add(plan.schedule.id);
    return false;
  });
  const unleased = readPlans.filter((plan) => !needsLease(plan));
  const toLease = readPlans.filter(needsLease).map((plan) => plan.schedule);
  const leases = await leaseEach(deps, toLease, options);
  const leasedPlans = planEach(deps, leases.leased, options, leftForNextTick);
  const plans = [...unleased, ...leasedPlans];
  const messages = plans.flatMap((plan) => plan.messages);
  const failed = new Set(await sendOrReportAllFailed(deps.queue, messages));
  const hasFailures = (plan: PlannedDispatch) => plan.messages.some((message) => failed.has(message.job.id));
  const withFailures = leasedPlans.filter(hasFailures).map((plan) => ({ plan, failed }));
  const sentInFull = leasedPlans.filter((plan) => !hasFailures(plan)).map((plan) => ({ plan, failed }));
  const [advanced, released] = await Promise.all([
    moveOnEach(deps, unleased, failed, options, leftForNextTick),
    releaseEach(deps, sentInFull, options),
  ]);
  return {
    failures: read.length - planned.length + leases.failures + leases.leased.length - leasedPlans.length,
    summaries: [...advanced, ...released],
    withFailures,
    queueFailed: failed.size === messages.length && plans.filter(hasFailures).length > 1,
  };
}

/**
 * A schedule read inside the early-send window whose plan sends nothing yet (its fires are not isolated,
 * ADR 0006): nothing to write; the rest of this tick leaves it out, a later tick's lookahead sends it.
 */
function waitsBeyondWindow(plan: PlannedDispatch): boolean {
  return plan.fires.length === 0 && plan.nextFireAt === plan.schedule.nextFireAt;
}

function planEach(
  deps: DispatchDeps,
  schedules: readonly Schedule[],
  options: DispatchDueOptions,
  leftForNextTick: Set<string>,
): PlannedDispatch[] {
  return schedules.flatMap((schedule) => {
    try {
      return [planDispatch(deps, schedule)];
    } catch (error) {
      leftForNextTick.add(schedule.id);
      options.logger.error('schedule could not be planned; the next tick retries it', {
        scheduleId: schedule.id,
        error,
      });
      return [];
    }
  });
}

/** Leases schedules by id (a lost race leaves one out: the tick that holds it dispatches it). */
async function leaseEach(
  deps: DispatchDeps,
  schedules: readonly Schedule[],
  options: DispatchDueOptions,
): Promise<{ leased: Schedule[]; failures: number }> {
  let failures = 0;
  const leased = await mapWithConcurrency(schedules, options.concurrency, async (schedule) => {
    try {
      return await deps.scheduleStore.leaseSchedule(
        schedule.id,
        options.owner,
        deps.clock.now(),
        options.leaseMs,
      );
    } catch (error) {
      failures += 1;
      options.logger.error('schedule could not be leased; the next tick retries it', {
        scheduleId: schedule.id,
        error,
      });
      return undefined;
    }
  });
  return { leased: leased.filter((schedule) => schedule !== undefined), failures };
}

/**
 * With notes on, hands the sent plans that leave a next fire over to notes (ADR 0007) and moves the rest
 * on as today; with them off, moves every one on.
 */
async function moveOnEach(
  deps: DispatchDeps,
  plans: readonly PlannedDispatch[],
  failed: ReadonlySet<string>,
  options: RoundOptions,
  leftForNextTick: Set<string>,
): Promise<(DispatchSummary | undefined)[]> {
  const { noteRun } = options;
  if (!noteRun?.mayConvert) return advanceEach(deps, plans, failed, options, leftForNextTick);
  const toConvert = plans.filter((plan) => convertsToNotes(plan, failed));
  const { converted, notWritten } = await convertEachToNotes(deps, toConvert, failed, noteRun, options);
  for (const { plan, summary } of converted) {
    if (summary?.release !== 'released') leftForNextTick.add(plan.schedule.id);
  }
  const rest = [...plans.filter((plan) => !convertsToNotes(plan, failed)), ...notWritten];
  const advanced = await advanceEach(deps, rest, failed, options, leftForNextTick);
  return [...converted.map((conversion) => conversion.summary), ...advanced];
}

/**
 * Moves each lease-less schedule on at its first unsent fire; undefined for one whose write failed. One
 * not moved on past everything it sent is left for the next tick.
 */
function advanceEach(
  deps: DispatchDeps,
  plans: readonly PlannedDispatch[],
  failed: ReadonlySet<string>,
  options: DispatchDueOptions,
  leftForNextTick: Set<string>,
): Promise<(DispatchSummary | undefined)[]> {
  return mapWithConcurrency(plans, options.concurrency, async (plan) => {
    try {
      const summary = await advanceDispatched(deps, plan, failed);
      if (summary.release !== 'released' || summary.sendFailures > 0) leftForNextTick.add(plan.schedule.id);
      return summary;
    } catch (error) {
      leftForNextTick.add(plan.schedule.id);
      options.logger.error('schedule could not be moved on; the next tick sends its fires again', {
        scheduleId: plan.schedule.id,
        error,
      });
      return undefined;
    }
  });
}

/** Releases each schedule at its first unsent fire; undefined for one whose release failed (its lease expires). */
function releaseEach(
  deps: DispatchDeps,
  sent: readonly SentPlan[],
  options: DispatchDueOptions,
): Promise<(DispatchSummary | undefined)[]> {
  return mapWithConcurrency(sent, options.concurrency, async ({ plan, failed }) => {
    try {
      return await releaseDispatched(deps, plan, failed, options.owner);
    } catch (error) {
      options.logger.error('schedule could not be released; it is retried when its lease expires', {
        scheduleId: plan.schedule.id,
        error,
      });
      return undefined;
    }
  });
}

function addSummaries(totals: DispatchDueTotals, summaries: readonly (DispatchSummary | undefined)[]): void {
  for (const summary of summaries) {
    if (!summary) {
      totals.errors += 1;
      continue;
    }
    totals.schedulesProcessed += 1;
    totals.jobsEnqueued += summary.jobsSent;
    totals.sendFailures += summary.sendFailures;
    if (summary.release === 'lease_lost') totals.leasesLost += 1;
    totals.fireLagMs.push(...summary.fireLagMs);
    if (summary.finished) totals.finished.push(summary.finished);
  }
}
