import type { RuntimeDeps } from '../dependencies';
import { dispatchEvents } from '../dispatch/dispatch-shards';
import { parseDispatchRequest } from '../fan-out/dispatch-request';
import { type DispatcherOutcome, runDispatcher } from '../fan-out/run-dispatcher';
import { metricsOutputOf, writeMetrics } from '../observability/metrics';
import { publishBestEffort } from '../observability/publish-events';

/** What one dispatcher invocation did; logged as one JSON line and turned into metrics. */
export interface DispatcherSummary extends Omit<DispatcherOutcome, 'fireLagMs' | 'finished' | 'removed'> {
  owner: string;
  shards: number[];
  schedulesFinished: number;
  schedulesRemoved: number;
  eventFailures: number;
  durationMs: number;
}

export type DispatcherHandler = (event: unknown) => Promise<DispatcherSummary>;

/**
 * The dispatcher (ADR 0006), invoked asynchronously by the tick with the due-index shards it leased:
 * dispatches their due schedules, publishes `schedule.finished` for those it finished and
 * `schedule.removed` for those its closing notes removed (ADR 0011), writes one JSON
 * summary line and EMF metrics (`Service: dispatcher`). An event that is not a dispatch request throws
 * (it is a bug: only the tick invokes the dispatcher).
 */
export function createDispatcherHandler(getDeps: () => RuntimeDeps): DispatcherHandler {
  return async (event) => {
    const deps = getDeps();
    const { clock, logger } = deps;
    const startedAt = clock.now();
    const request = parseDispatchRequest(event);
    const { fireLagMs, finished, removed, ...outcome } = await runDispatcher(deps, request);
    const published = await publishBestEffort(
      deps.events,
      dispatchEvents(finished, removed, clock.now()),
      logger,
    );
    const summary: DispatcherSummary = {
      ...outcome,
      owner: request.owner,
      shards: request.shards,
      schedulesFinished: finished.length,
      schedulesRemoved: removed.length,
      eventFailures: published.failed,
      durationMs: clock.now() - startedAt,
    };
    logger.info('dispatcher finished', {
      ...summary,
      maxFireLagMs: fireLagMs.length ? Math.max(...fireLagMs) : 0,
    });
    writeMetrics(metricsOutputOf(deps), { Service: 'dispatcher' }, [
      { name: 'SchedulesProcessed', unit: 'Count', values: [summary.schedulesProcessed] },
      { name: 'JobsEnqueued', unit: 'Count', values: [summary.jobsEnqueued] },
      { name: 'SendFailures', unit: 'Count', values: [summary.sendFailures] },
      { name: 'FireLag', unit: 'Milliseconds', values: fireLagMs },
      { name: 'DispatcherDuration', unit: 'Milliseconds', values: [summary.durationMs] },
      { name: 'DispatcherErrors', unit: 'Count', values: [summary.errors] },
    ]);
    return summary;
  };
}
