import { runtimeDependencies } from '../dependencies';
import { type AdminHandler, createAdminHandler } from '../handlers/admin';
import { staticTaskRegistry } from '../tasks/registry';

/**
 * Builds the admin Lambda's handler from the task modules, keyed by task id, like the worker's: the
 * admin API checks task ids and payloads against the same registry the workers run. The CDK app
 * generates an entry file that imports every module of `functions/` and calls this.
 *
 * @example
 * // generated admin entry
 * import * as httpPing from '../functions/http-ping';
 * import * as sendReport from '../functions/send-report';
 * export const handler = createAdminLambdaHandler({ 'http-ping': httpPing, 'send-report': sendReport });
 */
export function createAdminLambdaHandler(modules: Record<string, unknown>): AdminHandler {
  return createAdminHandler(runtimeDependencies, staticTaskRegistry(modules));
}
