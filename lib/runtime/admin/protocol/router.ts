import {
  ACTION_NAMES,
  type AdminAction,
  type AdminResponse,
  type AdminResults,
  isAdminAction,
} from '../../../core/admin-contract';
import { ValidationError } from '../../../core/errors';
import { adminChainStarter } from '../chains';
import type { ActionContext, ActionHandler } from '../context';
import type { AdminDeps } from '../deps';
import { UnknownActionError } from '../errors';
import { countJobs } from '../use-cases/job-counts';
import { retryJob } from '../use-cases/job-retry';
import { addJob, addJobs, cancelJob, getJob, getJobResult, listJobs } from '../use-cases/jobs';
import { previewSchedule } from '../use-cases/preview';
import { runJob } from '../use-cases/run-job';
import { resumeSchedule, runScheduleNow, updateSchedule } from '../use-cases/schedule-changes';
import {
  addSchedule,
  getSchedule,
  listSchedules,
  pauseSchedule,
  removeSchedule,
} from '../use-cases/schedules';
import { listTasks, pauseTask, resumeTask } from '../use-cases/tasks';
import { failure, success } from './response';

/** The use case serving each action of the contract; a missing action or a wrong result type fails to compile. */
const ACTIONS: { readonly [Action in AdminAction]: ActionHandler<Action> } = {
  add_schedule: addSchedule,
  get_schedule: getSchedule,
  list_schedules: listSchedules,
  update_schedule: updateSchedule,
  pause_schedule: pauseSchedule,
  resume_schedule: resumeSchedule,
  remove_schedule: removeSchedule,
  preview_schedule: previewSchedule,
  run_schedule_now: runScheduleNow,
  add_job: addJob,
  add_jobs: addJobs,
  get_job: getJob,
  list_jobs: listJobs,
  get_job_result: getJobResult,
  cancel_job: cancelJob,
  run_job: runJob,
  count_jobs: countJobs,
  retry_job: retryJob,
  list_tasks: listTasks,
  pause_task: pauseTask,
  resume_task: resumeTask,
};

export interface AdminRequestMeta {
  /** Shown in `internal_error` answers and logged with the failure (the Lambda request id in AWS). */
  requestId?: string;
}

export type AdminApi = (request: unknown, meta?: AdminRequestMeta) => Promise<AdminResponse>;

/**
 * The admin API: one function for people and tools. Takes `{ "action": "...", ...params }` and answers
 * `{ ok: true, result }` or `{ ok: false, error: { code, message, details? } }`. It never rejects:
 * a caller's mistake is an error answer, and an unexpected failure is logged with its stack and
 * answered as `internal_error` with the request id.
 *
 * @example
 * const admin = createAdminApi(deps);
 * await admin({ action: 'add_schedule', id: 'nightly', task: 'send-report',
 *   trigger: { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' } });
 * // { ok: true, result: { status: 'added', dispatched_jobs: 0, schedule: { id: 'nightly', … } } }
 */
export function createAdminApi(deps: AdminDeps): AdminApi {
  const { newId } = deps;
  const chains = adminChainStarter(deps);
  return async (request, meta) => {
    const requestId = meta?.requestId ?? newId();
    try {
      const { action, params } = route(request);
      const context: ActionContext = { deps, now: deps.clock.now(), requestId, newId, chains };
      return success(await serve(action, params, context));
    } catch (error) {
      return failure(error, requestId, deps.logger);
    }
  };
}

function serve<Action extends AdminAction>(
  action: Action,
  params: Record<string, unknown>,
  context: ActionContext,
): Promise<AdminResults[Action]> {
  const handler: ActionHandler<Action> = ACTIONS[action];
  return handler(params, context);
}

/** The action and its fields, from the envelope `{ "action": "...", ...fields }`. */
function route(request: unknown): { action: AdminAction; params: Record<string, unknown> } {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw ValidationError.single('', `the request must be a JSON object: { "action": "...", ...fields }`);
  }
  const { action, ...params } = request as Record<string, unknown>;
  if (action === undefined) {
    throw ValidationError.single('action', `is required: must be one of ${ACTION_NAMES.join(', ')}`);
  }
  if (typeof action !== 'string') {
    throw ValidationError.single('action', `must be a string, one of ${ACTION_NAMES.join(', ')}`);
  }
  if (!isAdminAction(action)) throw new UnknownActionError(action, ACTION_NAMES);
  return { action, params };
}
