import { mapWithConcurrency } from '../../core/concurrency';
import type { Schedule } from '../../core/model/schedule';
import type { Logger } from '../observability/logger';
import {
  type DispatchDeps,
  type DispatchSummary,
  type PlannedDispatch,
  planDispatch,
  releaseDispatched,
  sendOrReportAllFailed,
} from '../scheduling/dispatch';

export interface DispatchDueOptions {
  owner: string;
  /** Stop acquiring more schedules at this instant (the tick's budget). */
  stopAcquiringAt: number;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
  logger: Logger;
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
 * Leases due schedules in rounds of `batchSize` and dispatches them, until a round leases none, the
 * budget is spent, or the queue fails as a whole (then the rest waits for the next tick).
 *
 * One schedule's failure holds back no other: a schedule that fails to plan keeps its lease until it
 * expires; one whose messages failed is released at its first unsent fire only after the last round,
 * so this tick cannot lease it again, and the next tick retries it.
 */
export async function dispatchDueSchedules(
  deps: DispatchDeps,
  options: DispatchDueOptions,
): Promise<DispatchDueTotals> {
  const totals = emptyDispatchTotals();
  const releaseAfterRounds: SentPlan[] = [];
  try {
    await dispatchRounds(deps, options, totals, releaseAfterRounds);
  } finally {
    addSummaries(totals, await releaseEach(deps, releaseAfterRounds, options));
  }
  return totals;
}

async function dispatchRounds(
  deps: DispatchDeps,
  options: DispatchDueOptions,
  totals: DispatchDueTotals,
  releaseAfterRounds: SentPlan[],
): Promise<void> {
  for (;;) {
    const now = deps.clock.now();
    if (now >= options.stopAcquiringAt) {
      totals.budgetExhausted = true;
      return;
    }
    const leased = await deps.scheduleStore.acquireDueSchedules({
      owner: options.owner,
      now,
      dueBefore: now + deps.limits.lookaheadMs,
      leaseMs: options.leaseMs,
      limit: options.batchSize,
    });
    // A short round does not mean nothing is left: schedules leased by an overlapping tick were skipped,
    // and they may be released (with fires still due) before that tick acquires again. Only an empty
    // round ends the loop.
    if (leased.length === 0) return;
    const round = await dispatchRound(deps, leased, options);
    totals.errors += round.planFailures;
    addSummaries(totals, round.summaries);
    releaseAfterRounds.push(...round.withFailures);
    if (round.queueFailed) return;
  }
}

interface Round {
  planFailures: number;
  /** Of the schedules all of whose messages were sent (undefined: the release failed). */
  summaries: (DispatchSummary | undefined)[];
  /** Schedules some of whose messages were not sent. */
  withFailures: SentPlan[];
  /** Nothing was sent though messages of several schedules were tried: the queue itself is failing. */
  queueFailed: boolean;
}

/**
 * Dispatches the schedules leased in one round: plans each, sends the messages of all of them together
 * (a batch holds messages of any schedules: a schedule with one fire in the window does not cost a
 * request of its own), then releases those sent in full (at most `concurrency` at a time).
 */
async function dispatchRound(
  deps: DispatchDeps,
  leased: readonly Schedule[],
  options: DispatchDueOptions,
): Promise<Round> {
  const plans = leased.flatMap((schedule) => {
    try {
      return [planDispatch(deps, schedule)];
    } catch (error) {
      options.logger.error('schedule could not be planned; it is retried when its lease expires', {
        scheduleId: schedule.id,
        error,
      });
      return [];
    }
  });
  const messages = plans.flatMap((plan) => plan.messages);
  const failed = new Set(await sendOrReportAllFailed(deps.queue, messages));
  const sent = plans.map((plan) => ({ plan, failed }));
  const withFailures = sent.filter(({ plan }) => plan.messages.some((message) => failed.has(message.job.id)));
  const sentInFull = sent.filter((item) => !withFailures.includes(item));
  return {
    planFailures: leased.length - plans.length,
    summaries: await releaseEach(deps, sentInFull, options),
    withFailures,
    queueFailed: failed.size === messages.length && withFailures.length > 1,
  };
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
