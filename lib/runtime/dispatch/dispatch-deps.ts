import type { EpochMs } from '../../core/clock';
import type { Schedule } from '../../core/model/schedule';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';
import type { RuntimeDeps } from '../dependencies';
import type { Logger } from '../observability/logger';
import { type FireSending, SendTimes } from './send-fires';

/** What moving schedules on by their notes needs (the tick's dispatchers, the admin API's chain starts). */
export interface DispatchDeps extends FireSending {
  scheduleStore: ScheduleStore;
  /** The task logs the fires go into, and the job records a closing note reads (ADR 0011). */
  jobStore: Pick<JobStore, 'logFiresToSend' | 'getJobRecord'>;
  /** Uniform in [0, 1): the jitter of each fire. */
  random: () => number;
  /** A plan dispatches at most this many fires; its successor note carries the rest. */
  maxFiresPerPlan: number;
}

/** What dispatch code writes to the logs: only what went wrong. */
export type DispatchLogger = Pick<Logger, 'warn' | 'error'>;

/** What one schedule's plan did. */
export interface DispatchSummary {
  scheduleId: string;
  jobsSent: number;
  sendFailures: number;
  /** Where its chain goes on (its successor note's next fire); null when the chain ended. */
  nextFireAt: EpochMs | null;
  /** The schedule as its finish left it, when its chain ended with this plan. */
  finished?: Schedule;
  /** For each fire sent after its run time: how late it was sent (ms). */
  fireLagMs: number[];
}

/**
 * For how much of its budget a dispatch sends at phases: pages run one after another and each waits up
 * to a second for its phases, so a dispatch with a long backlog would send far fewer fires per second;
 * after this share it sends at once.
 */
const PHASED_SHARE_OF_BUDGET = 0.25;

/** The send times of each queue client: a warm process's dispatchers learn from the sends before them. */
const sendTimesOfQueue = new WeakMap<JobQueue, SendTimes>();

function sendTimesOf(queue: JobQueue): SendTimes {
  let times = sendTimesOfQueue.get(queue);
  if (!times) {
    times = new SendTimes();
    sendTimesOfQueue.set(queue, times);
  }
  return times;
}

/** The dispatch dependencies of a dispatcher started at `startedAt`. */
export function dispatchDepsOf(deps: RuntimeDeps, startedAt: EpochMs): DispatchDeps {
  const { config } = deps;
  return {
    scheduleStore: deps.scheduleStore,
    jobStore: deps.jobStore,
    queue: deps.queue,
    clock: deps.clock,
    random: deps.random,
    maxFiresPerPlan: config.maxFiresPerPlan,
    sleep: deps.sleep,
    toleranceMs: config.sendPhaseToleranceMs,
    sendTimes: sendTimesOf(deps.queue),
    phasesUntil: startedAt + config.tickBudgetMs * PHASED_SHARE_OF_BUDGET,
  };
}
