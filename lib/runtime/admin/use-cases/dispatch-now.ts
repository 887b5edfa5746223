import type { Schedule } from '../../../core/model/schedule';
import { dispatchLeasedSchedule } from '../../scheduling/dispatch';
import { loggedDispatchDeps } from '../../scheduling/dispatch-deps';
import { dispatchUnleasedSchedule } from '../../scheduling/dispatch-unleased';
import type { ActionContext } from '../context';

export interface DispatchNowOutcome {
  schedule: Schedule;
  /** Jobs this call sent for the schedule's fire times inside the lookahead window. */
  jobsSent: number;
  /** Set when the dispatch finished the schedule (it had no fire time left after these). */
  finished?: Schedule;
}

/**
 * A schedule whose next fire time falls inside the tick's lookahead window is dispatched by the admin
 * call itself, so it never waits for the next tick, as the tick would: from the state just written,
 * without a lease unless the schedule has `max_runs` (ADR 0005), else leased (when someone else holds the
 * lease, a tick, they dispatch it). Returns it as it is now. When sending fails the schedule is already
 * stored and moved on at its first unsent fire, so the call still succeeds and the next tick sends what
 * is missing.
 */
export async function dispatchIfInsideWindow(
  context: ActionContext,
  schedule: Schedule,
): Promise<DispatchNowOutcome> {
  const { deps, now } = context;
  const { nextFireAt } = schedule;
  if (schedule.paused || nextFireAt === null || nextFireAt > now + deps.planLimits.lookaheadMs) {
    return { schedule, jobsSent: 0 };
  }
  const owner = `admin:${context.requestId}`;
  let jobsSent: number;
  let finished: Schedule | undefined;
  try {
    const dispatchDeps = loggedDispatchDeps({
      scheduleStore: deps.scheduleStore,
      jobStore: deps.jobStore,
      queue: deps.queue,
      clock: deps.clock,
      random: deps.random,
      limits: deps.planLimits,
    });
    let summary = await dispatchUnleasedSchedule(dispatchDeps, schedule);
    if (!summary) {
      const leased = await deps.scheduleStore.leaseSchedule(schedule.id, owner, now, deps.scheduleLeaseMs);
      if (!leased) return { schedule, jobsSent: 0 };
      summary = await dispatchLeasedSchedule(dispatchDeps, leased, owner);
    }
    jobsSent = summary.jobsSent;
    finished = summary.finished;
    if (summary.sendFailures > 0) {
      deps.logger.warn('some fires could not be sent at once; the next tick sends them', {
        requestId: context.requestId,
        scheduleId: schedule.id,
        sendFailures: summary.sendFailures,
      });
    }
  } catch (error) {
    deps.logger.warn('could not dispatch the schedule at once; the tick will when the lease ends', {
      requestId: context.requestId,
      scheduleId: schedule.id,
      error,
    });
    return { schedule, jobsSent: 0 };
  }
  // The fires are sent either way; a failed re-read only leaves the answer showing the state before them.
  const dispatched = await deps.scheduleStore.getSchedule(schedule.id).catch(() => undefined);
  return { schedule: dispatched ?? schedule, jobsSent, ...(finished && { finished }) };
}
