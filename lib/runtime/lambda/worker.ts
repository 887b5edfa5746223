import { runtimeDependencies } from '../dependencies';
import { createWorkerHandler, type WorkerHandler } from '../handlers/worker';
import { staticTaskRegistry } from '../tasks/registry';

/**
 * Builds the worker Lambda's handler from the task modules, keyed by task id. The CDK app generates
 * an entry file that imports every module of `functions/` and calls this; an invalid module fails the
 * cold start with every problem listed, each naming its file.
 *
 * @example
 * // generated worker entry
 * import * as httpPing from '../functions/http-ping';
 * import * as sendReport from '../functions/send-report';
 * export const handler = createWorkerLambdaHandler({ 'http-ping': httpPing, 'send-report': sendReport });
 */
export function createWorkerLambdaHandler(modules: Record<string, unknown>): WorkerHandler {
  return createWorkerHandler(runtimeDependencies, staticTaskRegistry(modules));
}
