import type { ManualClock } from '../../../../lib/core/clock';
import type { EventPublisher } from '../../../../lib/core/ports/event-publisher';
import type { JobQueue } from '../../../../lib/core/ports/job-queue';
import type { JobStore } from '../../../../lib/core/ports/job-store';
import type { ScheduleStore } from '../../../../lib/core/ports/schedule-store';
import type { RuntimeDeps } from '../../../../lib/runtime/dependencies';
import { createLogger } from '../../../../lib/runtime/observability/logger';
import { runTick, type TickSummary } from '../../../../lib/runtime/tick/run-tick';
import { clockSleep, sequentialIds, testConfig } from '../../support';

/**
 * A tick over the harness's store, queue and clock, with the deployed configuration: what moves the
 * schedules the admin API starts on once their first notes come due (its send phases wait by moving
 * the clock).
 */
export function tickOf(h: {
  store: ScheduleStore & JobStore;
  queue: JobQueue;
  clock: ManualClock;
  events: EventPublisher;
}): () => Promise<TickSummary> {
  const deps: RuntimeDeps = {
    config: testConfig(),
    scheduleStore: h.store,
    jobStore: h.store,
    queue: h.queue,
    events: h.events,
    clock: h.clock,
    sleep: clockSleep(h.clock),
    random: () => 0.5,
    newId: sequentialIds('tick'),
    logger: createLogger({ level: 'error', sink: () => {} }),
    metricsSink: () => {},
  };
  const state = { lastCounterRepairAt: Number.NEGATIVE_INFINITY };
  return () => runTick(deps, state);
}
