import type { Schedule } from '../../core/model/schedule';
import { mapWithConcurrency } from '../concurrency';
import type { Logger } from '../observability/logger';
import {
  type DispatchDeps,
  type DispatchSummary,
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
}

/**
 * Leases due schedules in rounds of `batchSize` and dispatches them (releases at most `concurrency` at a time),
 * until a round leases none, the budget is spent, or the queue fails (then the rest waits for the next tick).
 * A schedule that fails to dispatch keeps its lease until it expires, and is retried by a later tick.
 */
export async function dispatchDueSchedules(
  deps: DispatchDeps,
  options: DispatchDueOptions,
): Promise<DispatchDueTotals> {
  const totals: DispatchDueTotals = {
    schedulesProcessed: 0,
    jobsEnqueued: 0,
    sendFailures: 0,
    leasesLost: 0,
    errors: 0,
    fireLagMs: [],
    budgetExhausted: false,
  };
  for (;;) {
    const now = deps.clock.now();
    if (now >= options.stopAcquiringAt) {
      totals.budgetExhausted = true;
      return totals;
    }
    const leased = await deps.scheduleStore.acquireDueSchedules({
      owner: options.owner,
      now,
      dueBefore: now + deps.limits.lookaheadMs,
      leaseMs: options.leaseMs,
      limit: options.batchSize,
    });
    const summaries = await dispatchRound(deps, leased, options);
    const roundFailed = addRound(totals, summaries);
    // A short round does not mean nothing is left: schedules leased by an overlapping tick were skipped,
    // and they may be released (with fires still due) before that tick acquires again. Only an empty
    // round ends the loop.
    if (leased.length === 0 || roundFailed) return totals;
  }
}

/**
 * Dispatches the schedules leased in one round: plans each, sends the messages of all of them together
 * (SendMessageBatch holds 10, from any schedules: a schedule with one fire in the window does not cost
 * a request of its own), then releases each (at most `concurrency` at a time) at its first unsent fire.
 * A schedule that fails to plan or release is `undefined`: it keeps its lease until it expires.
 */
async function dispatchRound(
  deps: DispatchDeps,
  leased: readonly Schedule[],
  options: DispatchDueOptions,
): Promise<(DispatchSummary | undefined)[]> {
  const failedToDispatch = (schedule: Schedule, error: unknown) => {
    options.logger.error('schedule dispatch failed; it is retried when its lease expires', {
      scheduleId: schedule.id,
      error,
    });
    return undefined;
  };
  const planned = leased.map((schedule) => {
    try {
      return planDispatch(deps, schedule);
    } catch (error) {
      return failedToDispatch(schedule, error);
    }
  });
  const messages = planned.flatMap((plan) => plan?.messages ?? []);
  const failed = new Set(await sendOrReportAllFailed(deps.queue, messages));
  return mapWithConcurrency(planned, options.concurrency, async (plan) => {
    if (!plan) return undefined;
    try {
      return await releaseDispatched(deps, plan, failed, options.owner);
    } catch (error) {
      return failedToDispatch(plan.schedule, error);
    }
  });
}

/** Adds one round to the totals; true when the round hit errors (keep the rest for the next tick). */
function addRound(totals: DispatchDueTotals, summaries: readonly (DispatchSummary | undefined)[]): boolean {
  let failed = false;
  for (const summary of summaries) {
    if (!summary) {
      totals.errors += 1;
      failed = true;
      continue;
    }
    totals.schedulesProcessed += 1;
    totals.jobsEnqueued += summary.jobsSent;
    totals.sendFailures += summary.sendFailures;
    if (summary.sendFailures > 0) failed = true;
    if (summary.release === 'lease_lost') totals.leasesLost += 1;
    totals.fireLagMs.push(...summary.fireLagMs);
  }
  return failed;
}
