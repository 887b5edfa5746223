import type { SQSRecord } from 'aws-lambda';
import type { JobStore } from '../../../lib/core/ports/job-store';
import type { ScheduleStore } from '../../../lib/core/ports/schedule-store';
import type { RuntimeConfig } from '../../../lib/runtime/config';
import { createWorkerHandler, type WorkerHandlerOptions } from '../../../lib/runtime/handlers/worker';
import { defineTask, type TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../../lib/runtime/tasks/registry';
import { jobRequest, manualSleep, sqsRecord, testRuntime } from '../support';

// biome-ignore lint/suspicious/noExplicitAny: test tasks take whatever payload their test sends.
type AnyTaskOptions = TaskOptions<any, any>;

export interface HarnessOptions {
  /** The job store the worker uses instead of the in-memory one (e.g. DynamoDB Local). */
  jobStore?: JobStore;
  /** The schedule store the worker (and the tick) uses instead of the in-memory one. */
  scheduleStore?: ScheduleStore;
  endSandbox?: WorkerHandlerOptions['endSandbox'];
  onHandlerDeadline?: WorkerHandlerOptions['onHandlerDeadline'];
}

/** A worker over the in-memory runtime with the given tasks; waiting advances the manual clock. */
export function workerHarness(
  tasks: Record<string, AnyTaskOptions>,
  config: Partial<RuntimeConfig> = {},
  options: HarnessOptions = {},
) {
  const runtime = testRuntime(config);
  const deps = {
    ...runtime.deps,
    jobStore: options.jobStore ?? runtime.deps.jobStore,
    scheduleStore: options.scheduleStore ?? runtime.deps.scheduleStore,
  };
  const registry = staticTaskRegistry(
    Object.fromEntries(Object.entries(tasks).map(([id, task]) => [id, { default: defineTask(task) }])),
  );
  const waits: number[] = [];
  // A rest the worker takes moves the clock at once and is recorded. A handler's deadline (a sleep
  // with a signal) passes only when the test moves time with `advanceTimers`.
  const timers = manualSleep(runtime.clock);
  deps.sleep = async (ms, signal) => {
    if (signal) return timers.sleep(ms, signal);
    waits.push(ms);
    runtime.clock.advance(ms);
  };
  const handler = createWorkerHandler(() => deps, registry, {
    ...(options.endSandbox ? { endSandbox: options.endSandbox } : {}),
    ...(options.onHandlerDeadline ? { onHandlerDeadline: options.onHandlerDeadline } : {}),
  });
  const longestTimeoutMs = Math.max(...registry.all().map((task) => task.definition.timeoutSeconds)) * 1000;
  const deliver = (records: SQSRecord[], remainingMs?: number | (() => number)) =>
    handler(
      { Records: records },
      remainingMs === undefined
        ? undefined
        : { getRemainingTimeInMillis: typeof remainingMs === 'number' ? () => remainingMs : remainingMs },
    );
  return {
    ...runtime,
    deps,
    waits,
    /** Moves time `ms` on, waking the handlers' deadlines that come due on the way. */
    advanceTimers: timers.advance,
    /** Runs the worker on one batch; `remainingMs` plays the Lambda's remaining time (fixed, or as time goes). */
    deliver,
    /**
     * Runs the worker on one batch in an invocation with time for its own jobs but too little left to
     * run a woken job after them: the message of a job a slot is handed to is sent.
     */
    deliverNearItsEnd(records: SQSRecord[]) {
      return deliver(records, longestTimeoutMs + deps.config.workerSafetyMarginMs + 500);
    },
    /** The records for everything the queue holds now (each message delivered once). */
    queuedRecords(): SQSRecord[] {
      return runtime.queue.drain().map((message) => sqsRecord(message));
    },
  };
}

/** A worker with the one task `task` (`options`, with a handler that records each start: job id and time). */
export function startRecordingWorker(task: string, options: Omit<AnyTaskOptions, 'handler'>) {
  const started: [string, number][] = [];
  const worker = workerHarness({
    [task]: { ...options, handler: (_payload, { jobId }) => void started.push([jobId, worker.clock.now()]) },
  });
  return { worker, started };
}

/** An SQS record for attempt `attempt` of a direct job of `task`, due now. */
export function recordFor(
  id: string,
  task: string,
  overrides: Parameters<typeof jobRequest>[1] = {},
  attempt = 1,
) {
  return sqsRecord({ job: jobRequest(id, { task, ...overrides }), attempt });
}

/** Lets every pending promise chain and I/O callback run (with fake timers, setImmediate stays real). */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
}
