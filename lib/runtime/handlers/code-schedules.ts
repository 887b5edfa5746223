import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { revisionOf } from '../../core/code-schedules/desired';
import type { AdminDeps } from '../admin/deps';
import { checkDesiredSchedules } from '../code-schedules/declared-schedules';
import { ReconcileRefusedError, reconcileSchedules } from '../code-schedules/reconcile';
import type { RuntimeDeps } from '../dependencies';
import type { TaskRegistry } from '../tasks/registry';
import { adminDependencies } from './admin';

/** The physical id of the custom resource: one per stack, kept by every update (no replacement). */
export const PHYSICAL_RESOURCE_ID = 'sundial-code-schedules';
/** Answered to a Create that failed: the Delete of its rollback then knows that nothing was created. */
export const NOT_CREATED_RESOURCE_ID = 'sundial-code-schedules-not-created';
/** CloudFormation reads at most 4 KB of a response; the reason gets what is left of it. */
const MAX_REASON_CHARS = 3_000;
/** Left before the Lambda's own timeout to answer CloudFormation, whatever the reconcile is doing. */
const ANSWER_MARGIN_MS = 10_000;
const RESPONSE_ATTEMPTS = 3;

/** The custom resource's properties, as CloudFormation sends them (every value a string). */
interface CodeScheduleProperties {
  Schedules?: string;
  MaxRemovalPercent?: string;
  OnDelete?: string;
}

export interface CustomResourceResponse {
  Status: 'SUCCESS' | 'FAILED';
  Reason: string;
  PhysicalResourceId: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  Data?: Record<string, string>;
}

export interface CodeSchedulesHandlerOptions {
  /** Sends the response to CloudFormation's pre-signed URL. @default an HTTPS PUT with retries */
  respond?: (url: string, response: CustomResourceResponse) => Promise<void>;
}

export type CodeSchedulesHandler = (
  event: CloudFormationCustomResourceEvent,
  context?: { getRemainingTimeInMillis?: () => number },
) => Promise<void>;

/**
 * The custom resource behind the stack's schedules declared in code: CloudFormation sends a Create, an
 * Update (whenever the declared schedules change) or a Delete, and this reconciles the table to the
 * request's declared schedules (`reconcileSchedules`, the admin API's use cases), then answers on the
 * request's URL: SUCCESS, or FAILED with the reason (a refused reconcile changed nothing). It never
 * throws, so the invocation is never retried behind CloudFormation's back; a request CloudFormation sends
 * again is reconciled again, which changes nothing the first run did. A stack deletion removes the
 * schedules declared in code, unless the stack keeps them (`OnDelete: keep`).
 */
export function createCodeSchedulesHandler(
  getDeps: () => RuntimeDeps,
  registry: TaskRegistry,
  options: CodeSchedulesHandlerOptions = {},
): CodeSchedulesHandler {
  const respond = options.respond ?? putResponse;
  return async (event, context) => {
    let response: CustomResourceResponse;
    try {
      const deps = adminDependencies(getDeps(), registry);
      const budget = (context?.getRemainingTimeInMillis?.() ?? 15 * 60_000) - ANSWER_MARGIN_MS;
      const reason = await withinBudget(serve(deps, event), budget);
      response = answer(event, 'SUCCESS', reason, physicalIdOf(event, true));
    } catch (error) {
      const reason =
        error instanceof ReconcileRefusedError
          ? error.message
          : `the reconcile failed: ${error instanceof Error ? error.message : String(error)}; what it wrote stays, and deploying again completes it`;
      logFailure(getDeps, event, error);
      response = answer(event, 'FAILED', reason, physicalIdOf(event, false));
    }
    try {
      await respond(event.ResponseURL, response);
    } catch (error) {
      logFailure(getDeps, event, error);
    }
  };
}

async function serve(deps: AdminDeps, event: CloudFormationCustomResourceEvent): Promise<string> {
  const properties = event.ResourceProperties as CodeScheduleProperties;
  const deployment = `cloudformation ${stackName(event.StackId)} ${event.RequestId}`;
  if (event.RequestType === 'Delete') {
    if (event.PhysicalResourceId === NOT_CREATED_RESOURCE_ID) return 'nothing was created';
    if (properties.OnDelete === 'keep') return 'the schedules declared in code are kept (OnDelete: keep)';
    const report = await reconcileSchedules(deps, [], { deployment, maxRemovalPercent: 100 });
    return `removed ${report.removed.length} schedules declared in code`;
  }
  const previous =
    event.RequestType === 'Update'
      ? previousRevision(deps, (event.OldResourceProperties as CodeScheduleProperties).Schedules)
      : undefined;
  const report = await reconcileSchedules(deps, schedulesOf(properties.Schedules), {
    deployment,
    maxRemovalPercent: Number(properties.MaxRemovalPercent ?? 50),
    ...(previous !== undefined && { previousRevision: previous }),
  });
  return `created ${report.created.length}, updated ${report.updated.length}, removed ${report.removed.length}, unchanged ${report.unchanged} (revision ${report.revision})`;
}

function schedulesOf(text: string | undefined): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '[]');
  } catch {
    throw new ReconcileRefusedError(['the Schedules property is not JSON']);
  }
  if (!Array.isArray(parsed)) throw new ReconcileRefusedError(['the Schedules property is not a JSON array']);
  return parsed;
}

/** The revision an Update replaces, when its old schedules are still valid (else none: nothing exempted). */
function previousRevision(deps: AdminDeps, text: string | undefined): string | undefined {
  try {
    return revisionOf(checkDesiredSchedules(deps.tasks, schedulesOf(text)));
  } catch {
    return undefined;
  }
}

function physicalIdOf(event: CloudFormationCustomResourceEvent, succeeded: boolean): string {
  if (event.RequestType !== 'Create') return event.PhysicalResourceId;
  return succeeded ? PHYSICAL_RESOURCE_ID : NOT_CREATED_RESOURCE_ID;
}

function answer(
  event: CloudFormationCustomResourceEvent,
  status: CustomResourceResponse['Status'],
  reason: string,
  physicalResourceId: string,
): CustomResourceResponse {
  return {
    Status: status,
    Reason: reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}… (see the log)` : reason,
    PhysicalResourceId: physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
}

/** `arn:aws:cloudformation:us-east-1:123:stack/Shop/guid` → `Shop`. */
function stackName(stackId: string): string {
  return stackId.split('/')[1] ?? stackId;
}

function withinBudget<T>(work: Promise<T>, budgetMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('it did not finish within the function’s time')),
      Math.max(0, budgetMs),
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function logFailure(
  getDeps: () => RuntimeDeps,
  event: CloudFormationCustomResourceEvent,
  error: unknown,
): void {
  const fields = { requestType: event.RequestType, requestId: event.RequestId, error };
  try {
    getDeps().logger.error('schedules declared in code: request failed', fields);
  } catch {
    console.error(
      JSON.stringify({ level: 'error', message: 'schedules declared in code', error: String(error) }),
    );
  }
}

/**
 * PUTs the response to CloudFormation's pre-signed S3 URL, as its own helper does (no content type: the
 * URL is signed without one), retrying a failed send twice.
 */
async function putResponse(url: string, response: CustomResourceResponse): Promise<void> {
  const body = Buffer.from(JSON.stringify(response));
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await fetch(url, { method: 'PUT', body, signal: AbortSignal.timeout(10_000) });
      if (answer.ok) return;
      throw new Error(`the response URL answered ${answer.status}`);
    } catch (error) {
      if (attempt >= RESPONSE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
}
