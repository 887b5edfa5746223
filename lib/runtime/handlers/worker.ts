import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { RuntimeDeps } from '../dependencies';
import { PausedTasks } from '../flow/paused-tasks';
import { metricsOutputOf, writeMetrics } from '../observability/metrics';
import type { TaskRegistry } from '../tasks/registry';
import { deliverCarryingOn } from '../worker/carry-on';
import { FailureNotices } from '../worker/failure-notices';
import { JobEventBatch } from '../worker/job-events';
import { emptyCounters, type WorkerContext } from '../worker/worker-context';

/** The part of Lambda's context the worker uses (the local platform passes its own). */
export interface WorkerInvocationContext {
  getRemainingTimeInMillis(): number;
}

export type WorkerHandler = (event: SQSEvent, context?: WorkerInvocationContext) => Promise<SQSBatchResponse>;

export interface WorkerHandlerOptions {
  /**
   * Ends the process once the batch is recorded, when a handler that ignored its abort signal still
   * runs at the invocation's end, so it cannot run on beside its retry in a later invocation. With it, such
   * a handler is waited for until the invocation's end; without it (the local platform, tests), until it
   * settles, however long. The Lambda entry passes one that exits (`createWorkerLambdaHandler`).
   */
  endSandbox?: (stillRunning: { jobIds: readonly string[] }) => void;
  /**
   * Told when a handler's deadline passes before it settled (its signal is aborted then): the invocation
   * now waits for it, until it settles or until the invocation's end. The local platform then lets
   * another sandbox take this one's place, as Lambda runs other invocations beside a held one.
   */
  onHandlerDeadline?: (jobId: string) => void;
}

/** Without a Lambda context (local calls) a run is bounded by its task's timeout alone. */
const NO_LAMBDA_DEADLINE = { getRemainingTimeInMillis: () => Number.POSITIVE_INFINITY };

/**
 * The worker: runs the jobs of an SQS batch concurrently (each followed by the woken jobs its run handed
 * a slot to, while the invocation has time for them) and reports the messages to redeliver as
 * `batchItemFailures` (the event source mapping needs `ReportBatchItemFailures`); a batch never fails whole.
 * Job events are published once per invocation.
 */
export function createWorkerHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
  options: WorkerHandlerOptions = {},
): WorkerHandler {
  const pausedTasks = new PausedTasks();
  return async (event, context = NO_LAMBDA_DEADLINE) => {
    const deps = getDeps();
    const ctx: WorkerContext = {
      deps,
      registry,
      events: new JobEventBatch(deps.events, deps.logger),
      failures: new FailureNotices(deps),
      counters: emptyCounters(),
      remainingMs: () => context.getRemainingTimeInMillis(),
      endsSandbox: options.endSandbox !== undefined,
      ...(options.onHandlerDeadline && { onHandlerDeadline: options.onHandlerDeadline }),
      stillRunning: [],
      pausedTasks,
    };
    const outcomes = await Promise.all(event.Records.map((record) => deliverCarryingOn(ctx, record)));
    await Promise.all([ctx.events.flush(), ctx.failures.flush()]);

    const { counters } = ctx;
    writeMetrics(metricsOutputOf(deps), { Service: 'worker' }, [
      { name: 'JobsSucceeded', unit: 'Count', values: [counters.succeeded] },
      { name: 'JobsFailed', unit: 'Count', values: [counters.failed] },
      { name: 'JobsRetried', unit: 'Count', values: [counters.retried] },
      { name: 'JobsMissed', unit: 'Count', values: [counters.missed] },
      { name: 'JobsDeferred', unit: 'Count', values: [counters.deferred] },
      { name: 'JobsWaiting', unit: 'Count', values: [counters.waiting] },
      { name: 'UnreadableMessages', unit: 'Count', values: [counters.unreadable] },
      { name: 'StartLag', unit: 'Milliseconds', values: counters.startLagMs },
    ]);
    const response = {
      batchItemFailures: event.Records.flatMap((record, index) =>
        outcomes[index] === 'retry_later' ? [{ itemIdentifier: record.messageId }] : [],
      ),
    };
    if (ctx.stillRunning.length > 0 && options.endSandbox) {
      deps.logger.error('ending this sandbox: handlers still run that ignored their abort signal', {
        jobIds: ctx.stillRunning,
      });
      options.endSandbox({ jobIds: ctx.stillRunning });
    }
    return response;
  };
}
