import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sleep } from '../concurrency';
import type { RuntimeDeps } from '../dependencies';
import { writeMetrics } from '../observability/metrics';
import type { TaskRegistry } from '../tasks/registry';
import { JobEventBatch } from '../worker/job-events';
import { processMessage } from '../worker/process-message';
import { emptyCounters, type WorkerContext } from '../worker/worker-context';

/** The part of Lambda's context the worker uses (the local platform passes its own). */
export interface WorkerInvocationContext {
  getRemainingTimeInMillis(): number;
}

export type WorkerHandler = (event: SQSEvent, context?: WorkerInvocationContext) => Promise<SQSBatchResponse>;

export interface WorkerHandlerOptions {
  /** How the worker waits out the sub-second rest before a job's run time. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/** Without a Lambda context (local calls) a run is bounded by its task's timeout alone. */
const NO_LAMBDA_DEADLINE = { getRemainingTimeInMillis: () => Number.MAX_SAFE_INTEGER };

/**
 * The worker: runs the jobs of an SQS batch concurrently and reports the messages to redeliver as
 * `batchItemFailures` (the event source mapping needs `ReportBatchItemFailures`); a batch never fails whole.
 * Job events are published once per invocation.
 */
export function createWorkerHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
  options: WorkerHandlerOptions = {},
): WorkerHandler {
  return async (event, context = NO_LAMBDA_DEADLINE) => {
    const deps = getDeps();
    const ctx: WorkerContext = {
      deps,
      registry,
      events: new JobEventBatch(deps.events, deps.logger),
      counters: emptyCounters(),
      remainingMs: () => context.getRemainingTimeInMillis(),
      sleep: options.sleep ?? sleep,
    };
    const outcomes = await Promise.all(event.Records.map((record) => processMessage(ctx, record)));
    await ctx.events.flush();

    const { counters } = ctx;
    writeMetrics(
      deps.config.metricsNamespace,
      { Service: 'worker' },
      [
        { name: 'JobsSucceeded', unit: 'Count', values: [counters.succeeded] },
        { name: 'JobsFailed', unit: 'Count', values: [counters.failed] },
        { name: 'JobsRetried', unit: 'Count', values: [counters.retried] },
        { name: 'JobsMissed', unit: 'Count', values: [counters.missed] },
        { name: 'JobsDeferred', unit: 'Count', values: [counters.deferred] },
        { name: 'UnreadableMessages', unit: 'Count', values: [counters.unreadable] },
        { name: 'StartLag', unit: 'Milliseconds', values: counters.startLagMs },
      ],
      deps.clock.now(),
      deps.metricsSink,
    );
    return {
      batchItemFailures: event.Records.flatMap((record, index) =>
        outcomes[index] === 'retry_later' ? [{ itemIdentifier: record.messageId }] : [],
      ),
    };
  };
}
