import type { Context } from 'aws-lambda';
import type { RuntimeDeps } from '../dependencies';
import { type AdminHandler, createAdminHandler } from '../handlers/admin';
import type { TaskRegistry } from '../tasks/registry';
import { withLambdaContext } from './lambda-context';

export type AdminLambdaHandler = (event: unknown, context: Context) => ReturnType<AdminHandler>;

/**
 * The admin Lambda's handler: the admin API over the task registry the workers run, with the Lambda
 * context on every log line. The CDK app generates an entry file that imports every module of
 * `functions/` and calls this with a static registry.
 *
 * @example
 * // generated admin entry
 * import * as sendReport from '../functions/send-report';
 * export const handler = createAdminLambdaHandler(runtimeDependencies, staticTaskRegistry({ 'send-report': sendReport }));
 */
export function createAdminLambdaHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
): AdminLambdaHandler {
  return withLambdaContext(getDeps, createAdminHandler(getDeps, registry));
}
