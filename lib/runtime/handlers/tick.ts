import type { RuntimeDeps } from '../dependencies';
import { metricsOutputOf, writeMetrics } from '../observability/metrics';
import { runTick, type TickState, type TickSummary } from '../tick/run-tick';
import { writeRunningJobsMetrics } from '../tick/running-jobs-metric';

export type TickHandler = (event?: unknown) => Promise<TickSummary>;

/**
 * The scheduler tick, for Lambda (an EventBridge rule every minute) and for the local platform (any
 * rate). The event is ignored. Writes one JSON summary line and CloudWatch EMF metrics per run,
 * including `RunningJobs` per task from the task counters.
 */
export function createTickHandler(getDeps: () => RuntimeDeps): TickHandler {
  const state: TickState = { lastCounterRepairAt: Number.NEGATIVE_INFINITY };
  return async () => {
    const deps = getDeps();
    const summary = await runTick(deps, state);
    const { fireLagMs, ...fields } = summary;
    deps.logger.info('tick finished', {
      ...fields,
      maxFireLagMs: fireLagMs.length ? Math.max(...fireLagMs) : 0,
    });
    writeMetrics(metricsOutputOf(deps), { Service: 'tick' }, [
      { name: 'SchedulesProcessed', unit: 'Count', values: [summary.schedulesProcessed] },
      { name: 'JobsEnqueued', unit: 'Count', values: [summary.jobsEnqueued + summary.parkedJobsSent] },
      { name: 'SendFailures', unit: 'Count', values: [summary.sendFailures] },
      { name: 'FireLag', unit: 'Milliseconds', values: fireLagMs },
      { name: 'TickDuration', unit: 'Milliseconds', values: [summary.durationMs] },
      { name: 'JobsReaped', unit: 'Count', values: [summary.jobsReaped] },
      { name: 'JobsWoken', unit: 'Count', values: [summary.jobsWoken] },
      { name: 'TickErrors', unit: 'Count', values: [summary.errors] },
      { name: 'EventFailures', unit: 'Count', values: [summary.eventFailures] },
    ]);
    await writeRunningJobsMetrics(deps);
    return summary;
  };
}
