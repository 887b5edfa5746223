import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { RuntimeDeps } from '../dependencies';
import { createWorkerHandler, type WorkerHandlerOptions } from '../handlers/worker';
import type { TaskRegistry } from '../tasks/registry';
import { withLambdaContext } from './lambda-context';

export type WorkerLambdaHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The worker Lambda's handler. The CDK app generates an entry file that imports every module of
 * `functions/` and calls this with a static registry.
 *
 * Every log line carries the Lambda context. It ends the sandbox when a handler that ignored its abort
 * signal still runs at the end of the invocation ({@link exitSandbox}); the local platform runs it in a
 * worker thread per sandbox, where exiting ends the thread.
 *
 * @example
 * // generated worker entry
 * import * as sendReport from '../functions/send-report';
 * export const handler = createWorkerLambdaHandler(runtimeDependencies, staticTaskRegistry({ 'send-report': sendReport }));
 */
export function createWorkerLambdaHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
  options: Pick<WorkerHandlerOptions, 'onHandlerDeadline'> = {},
): WorkerLambdaHandler {
  return withLambdaContext(
    getDeps,
    createWorkerHandler(getDeps, registry, { ...options, endSandbox: exitSandbox }),
  );
}

/**
 * Exits the process. A promise cannot be cancelled, so a handler that ignores its abort signal would
 * otherwise run on in this sandbox and resume when the next invocation thaws it, beside its own retry.
 * A runtime process that exits during an invocation makes Lambda report `Runtime.ExitError` and reset
 * the execution environment: the next invocation starts a fresh process. Exiting before the batch
 * response is returned means the batch counts as failed and all its messages come back after the
 * visibility timeout; that is safe because every outcome is already in the store: each message is then
 * dropped as a duplicate at claim (or waits, as any message does, when its job runs elsewhere).
 * Returning first and exiting later would race the runtime's posting of the response and could kill the
 * next invocation instead.
 */
export function exitSandbox(): never {
  process.exit(1);
}
