import { randomUUID } from 'node:crypto';
import { type AdminApi, type AdminDeps, type AdminResponse, createAdminApi } from '../admin';
import type { RuntimeDeps } from '../dependencies';
import type { TaskRegistry } from '../tasks/registry';

export type AdminHandler = (event: unknown, context?: { awsRequestId?: string }) => Promise<AdminResponse>;

/**
 * The admin Lambda: the event is the request (`{ "action": "...", ...fields }`, as sent by the CLI,
 * `aws lambda invoke` or an SDK), the answer is the admin API's response. Dependencies are built on
 * the first invocation and reused while the Lambda is warm.
 *
 * @example
 * // the generated entry point of the admin Lambda
 * export const handler = createAdminHandler(runtimeDependencies, staticTaskRegistry({ 'send-report': sendReport }));
 */
export function createAdminHandler(getDeps: () => RuntimeDeps, registry: TaskRegistry): AdminHandler {
  let api: AdminApi | undefined;
  return async (event, context) => {
    const requestId = context?.awsRequestId ?? randomUUID();
    try {
      api ??= createAdminApi(adminDependencies(getDeps(), registry));
    } catch (error) {
      // The deployment is broken (its configuration, most likely); the caller still gets an answer.
      console.error(
        JSON.stringify({
          level: 'error',
          message: 'admin API could not start',
          requestId,
          error: String(error),
          stack: (error as Error)?.stack,
        }),
      );
      return {
        ok: false,
        error: { code: 'internal_error', message: `internal error; see the logs (request id ${requestId})` },
      };
    }
    return api(parseIfText(event), { requestId });
  };
}

/** The runtime's dependencies as the admin API needs them. */
export function adminDependencies(deps: RuntimeDeps, registry: TaskRegistry): AdminDeps {
  return {
    scheduleStore: deps.scheduleStore,
    jobStore: deps.jobStore,
    queue: deps.queue,
    tasks: registry,
    clock: deps.clock,
    sleep: deps.sleep,
    random: deps.random,
    newId: deps.newId,
    maxFiresPerPlan: deps.config.maxFiresPerPlan,
    unclaimedResendMs: deps.config.unclaimedResendSeconds * 1000,
    defaultResultTtlSeconds: deps.config.defaultResultTtlSeconds,
    logger: deps.logger,
    events: deps.events,
  };
}

/** A request sent as a JSON string (some tools double-encode) is read as the object it holds. */
function parseIfText(event: unknown): unknown {
  if (typeof event !== 'string') return event;
  try {
    return JSON.parse(event);
  } catch {
    return event;
  }
}
