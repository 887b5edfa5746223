import { PARKED_JOB_LEAD_MS, PARKED_JOB_LEASE_MS } from '../../core/ports/job-queue';
import type { RuntimeDeps } from '../dependencies';
import { dispatchEvents, emptyDispatchTotals } from '../dispatch/dispatch-shards';
import type { FanOutTotals } from '../fan-out/fan-out-dispatch';
import { dispatchForTick } from '../fan-out/tick-dispatch';
import { repairLines } from '../flow/idle-lines';
import { publishBestEffort } from '../observability/publish-events';
import { sendParkedJobs } from './parked-jobs';
import { reapExpiredJobLeases } from './reaper';

/** What one tick did; logged as one JSON line and turned into metrics. */
export interface TickSummary extends Omit<FanOutTotals, 'fireLagMs' | 'finished' | 'removed'> {
  owner: string;
  parkedJobsSent: number;
  jobsReaped: number;
  /** Waiting jobs woken by the fallback for lost wake-ups (tasks with free slots and a line). */
  jobsWoken: number;
  countersRepaired: number;
  /** Schedules this tick finished (each published as `schedule.finished`). */
  schedulesFinished: number;
  /** Finished schedules this tick's closing notes removed (each published as `schedule.removed`). */
  schedulesRemoved: number;
  /** Events the bus did not take (logged; the tick's work stands). */
  eventFailures: number;
  durationMs: number;
  fireLagMs: number[];
}

/** State kept between ticks of one warm container. */
export interface TickState {
  lastCounterRepairAt: number;
}

/**
 * One tick: dispatches due schedules (until the budget is spent), sends parked jobs that came due,
 * reaps jobs whose worker stopped answering, now and then repairs the task counters, and wakes waiting
 * jobs of tasks with free slots (a lost wake-up).
 * Each part fails on its own: an error is logged and counted, the other parts still run.
 */
export async function runTick(deps: RuntimeDeps, state: TickState): Promise<TickSummary> {
  const { config, logger, clock } = deps;
  const startedAt = clock.now();
  const owner = `tick-${deps.newId()}`;
  let errors = 0;
  const guarded = async <T>(part: string, fallback: T, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      errors += 1;
      logger.error(`tick: ${part} failed`, { owner, error });
      return fallback;
    }
  };

  const [dispatched, parked, reaped] = await Promise.all([
    guarded(
      'dispatching schedules',
      { ...emptyDispatchTotals(), shardsLeased: 0, dispatchersStarted: 0 },
      () => dispatchForTick(deps, owner),
    ),
    guarded('sending parked jobs', { sent: 0, failed: 0 }, () =>
      sendParkedJobs(deps, {
        owner,
        lookaheadMs: PARKED_JOB_LEAD_MS,
        leaseMs: PARKED_JOB_LEASE_MS,
        limit: config.parkedBatchSize,
        stopAcquiringAt: startedAt + config.tickBudgetMs,
      }),
    ),
    guarded('reaping expired job leases', { reaped: 0, failed: 0 }, () =>
      reapExpiredJobLeases(deps, { limit: config.reapBatchSize }),
    ),
  ]);
  const countersRepaired = await guarded('repairing counters', 0, () => repairCountersWhenDue(deps, state));
  const { fireLagMs, finished, removed, ...totals } = dispatched;
  const published = await publishBestEffort(
    deps.events,
    dispatchEvents(finished, removed, clock.now()),
    logger,
  );
  // After reaping and repairs, which give slots back.
  const jobsWoken = await guarded('waking waiting jobs', 0, () => repairLines(deps, config.taskLimits));

  return {
    ...totals,
    errors: totals.errors + errors,
    owner,
    parkedJobsSent: parked.sent,
    jobsReaped: reaped.reaped,
    jobsWoken,
    countersRepaired,
    schedulesFinished: finished.length,
    schedulesRemoved: removed.length,
    eventFailures: published.failed,
    durationMs: clock.now() - startedAt,
    fireLagMs,
  };
}

async function repairCountersWhenDue(deps: RuntimeDeps, state: TickState): Promise<number> {
  const now = deps.clock.now();
  const interval = deps.config.counterRepairIntervalSeconds * 1000;
  if (interval === 0 || now - state.lastCounterRepairAt < interval) return 0;
  state.lastCounterRepairAt = now;
  const corrections = await deps.jobStore.repairCounters(now);
  for (const [task, correction] of corrections) {
    deps.logger.warn('task counter repaired', { task, was: correction.was, now: correction.now });
  }
  return corrections.size;
}
