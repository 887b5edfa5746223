import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import type { RuntimeDeps } from '../dependencies';
import { createCodeSchedulesHandler } from '../handlers/code-schedules';
import type { TaskRegistry } from '../tasks/registry';
import { withLambdaContext } from './lambda-context';

export type CodeSchedulesLambdaHandler = (
  event: CloudFormationCustomResourceEvent,
  context: Context,
) => Promise<void>;

/**
 * The Lambda behind the stack's `Custom::SundialSchedules` resource: reconciles the schedules declared in
 * code on each Create, Update and Delete CloudFormation sends (`createCodeSchedulesHandler`), over the task
 * registry the workers run. The CDK app generates its entry, as the admin Lambda's.
 *
 * @example
 * // generated entry
 * export const handler = createCodeSchedulesLambdaHandler(runtimeDependencies, staticTaskRegistry({ 'send-report': sendReport }));
 */
export function createCodeSchedulesLambdaHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
): CodeSchedulesLambdaHandler {
  return withLambdaContext(getDeps, createCodeSchedulesHandler(getDeps, registry));
}
