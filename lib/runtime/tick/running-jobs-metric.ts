import type { RuntimeDeps } from '../dependencies';
import { metricsOutputOf, writeMetrics } from '../observability/metrics';

/** The EMF metric of jobs running per task (lib/infra/metrics.ts graphs it by `Service` and `Task`). */
export const RUNNING_JOBS_METRIC = 'RunningJobs';

/**
 * Writes `RunningJobs` for every task with a counter (tasks with `maxRunningJobs`), dimensions
 * `{ Service: 'tick', Task }`, from the store's counters. A failed read is logged, never thrown: the
 * metric must not fail a tick.
 */
export async function writeRunningJobsMetrics(
  deps: Pick<RuntimeDeps, 'jobStore' | 'config' | 'clock' | 'logger' | 'metricsSink'>,
): Promise<void> {
  let counts: Map<string, number>;
  try {
    counts = await deps.jobStore.runningCounts();
  } catch (error) {
    deps.logger.warn('could not read the task counters for the RunningJobs metric', { error });
    return;
  }
  const output = metricsOutputOf(deps);
  for (const [task, running] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    writeMetrics(output, { Service: 'tick', Task: task }, [
      { name: RUNNING_JOBS_METRIC, unit: 'Count', values: [Math.max(0, running)] },
    ]);
  }
}
