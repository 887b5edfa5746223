import {
  type AddedJob,
  type AdminResponse,
  DEFAULT_PAYLOAD,
  wireJob,
  wireJobResult,
} from '../../../core/admin-contract';
import {
  addJobParams,
  addJobsParams,
  jobIdParams,
  jobResultParams,
  listJobsParams,
  type runJobParams,
} from '../../../core/admin-contract/jobs';
import { overridesOfParams } from '../../../core/admin-contract/overrides-and-metadata';
import { JobNotFoundError } from '../../../core/errors';
import { isFinalStatus, JOB_STATUSES, type JobStatus } from '../../../core/model/job';
import { jobRequestOf } from '../../../core/model/job-messages';
import { presentMetadata } from '../../../core/model/metadata';
import { isUnsuccessfulOutcome, UNSUCCESSFUL_OUTCOMES } from '../../../core/ports/job-store';
import type { ActionContext, ActionHandler } from '../context';
import { JobNotCancellableError, NoResultYetError } from '../errors';
import { failure, success } from '../protocol/response';
import { InputCheck } from '../validation/input-check';
import { checkTimeoutOverride } from '../validation/timeout-override';
import { dispatchedFireJob, resultTtlMsOf } from './dispatched-fires';
import { type EnqueueOutcome, type EnqueueRequest, enqueueJobs } from './enqueue';
import { waitsByTask, waitsOf } from './job-waits';
import { cleanUpIfFinished, jobCancelledEvents, publishAfterWrite } from './lifecycle-events';
import { waitForResult } from './result-wait';
import { listJobsWithDispatchedFires } from './schedule-job-listing';

/**
 * `add_job`: one job of a task, now or at `run_at` (a past `run_at` means now). Jobs starting within
 * 15 minutes go to the queue delayed; later ones wait in the store until the tick sends them.
 */
export const addJob: ActionHandler<'add_job'> = async (raw, context) => {
  const request = checkedJobRequest(raw, context, '');
  const [outcome] = await enqueueJobs(context, [request]);
  if (!outcome?.ok) throw outcome?.error;
  return addedJob(outcome);
};

/**
 * `add_jobs`: up to `LIMITS.bulkJobs` jobs in one call. Each item succeeds or fails on its own, and the
 * answer has one entry per item, in order: `{ ok: true, result }` or `{ ok: false, error }`.
 */
export const addJobs: ActionHandler<'add_jobs'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const { params } = check.valid({ params: check.params(addJobsParams, raw) });

  const items: Array<{ request: EnqueueRequest } | { response: AdminResponse<AddedJob> }> = params.jobs.map(
    (item, index) => {
      try {
        return { request: checkedJobRequest(item, context, `jobs[${index}]`) };
      } catch (error) {
        return { response: failure(error, context.requestId, context.deps.logger) };
      }
    },
  );
  const requests = items.flatMap((item) => ('request' in item ? [item.request] : []));
  const outcomes = (await enqueueJobs(context, requests)).values();
  const results = items.map((item): AdminResponse<AddedJob> => {
    if ('response' in item) return item.response;
    const outcome = outcomes.next().value as EnqueueOutcome;
    return outcome.ok
      ? success(addedJob(outcome))
      : failure(outcome.error, context.requestId, context.deps.logger);
  });
  const added = results.filter((result) => result.ok).length;
  return { added, failed: results.length - added, results };
};

function addedJob(outcome: Extract<EnqueueOutcome, { ok: true }>): AddedJob {
  return { status: outcome.status, queued: outcome.queued, job: wireJob(outcome.job) };
}

/**
 * Validates one job (of `add_job`, item `prefix` of `add_jobs`, or `run_job` with its `schema`) into what
 * the store and queue take.
 */
export function checkedJobRequest(
  raw: unknown,
  context: ActionContext,
  prefix: string,
  schema: typeof addJobParams | typeof runJobParams = addJobParams,
): EnqueueRequest {
  const check = new InputCheck(context.deps.tasks, prefix);
  const parsed = check.params(schema, raw);
  const fields: Record<string, unknown> = typeof raw === 'object' && raw !== null ? { ...raw } : {};
  const task = check.task(fields.task);
  check.payload(task, InputCheck.payloadToCheck(fields.payload, DEFAULT_PAYLOAD));
  checkTimeoutOverride(check, task, fields.timeout_seconds);
  const { params, registered } = check.valid({ params: parsed, registered: task });

  const runAt = Math.max(params.run_at ?? context.now, context.now);
  const grace =
    params.misfire_grace_seconds === undefined
      ? registered.definition.misfireGraceSeconds
      : params.misfire_grace_seconds;
  const overrides = overridesOfParams(params);
  const metadata = presentMetadata(params.metadata);
  return {
    job: {
      id: params.job_id ?? context.newId(),
      task: registered.id,
      payload: params.payload === undefined ? DEFAULT_PAYLOAD : params.payload,
      origin: 'direct',
      scheduleId: null,
      fireTime: null,
      runAt,
      startDeadline: grace === null ? null : runAt + grace * 1000,
      ...(overrides && { overrides }),
      ...(metadata && { metadata }),
      ...(params.priority === 'critical' && { priority: params.priority }),
    },
    conflictPolicy: params.conflict_policy ?? 'exception',
  };
}

function validJobId(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  return check.valid({ params: check.params(jobIdParams, raw) }).params.job_id;
}

/** `get_job`: a stored job, or a fire the tick sent to the queue that has not started yet (`queued`). */
export const getJob: ActionHandler<'get_job'> = async (raw, context) => {
  const jobId = validJobId(raw, context);
  const job =
    (await context.deps.jobStore.getJob(jobId, context.now)) ?? (await dispatchedFireJob(jobId, context));
  if (!job) throw new JobNotFoundError(jobId);
  return { job: wireJob(job, waitsOf(await waitsByTask(context, [job]), job)) };
};

/**
 * `list_jobs`: newest first, filtered by schedule, task or status; pass `cursor` back for the next page.
 * A status alone of an unsuccessful ending lists such jobs of every task, latest finish first, narrowed
 * by `since`/`until` (their finish time).
 */
export const listJobs: ActionHandler<'list_jobs'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const parsed = check.params(listJobsParams, raw);
  const byOwner = raw.schedule_id !== undefined || raw.task !== undefined;
  const statusAlone = `a status alone of ${UNSUCCESSFUL_OUTCOMES.join(', ')}`;
  if (!byOwner && raw.status === undefined) {
    check.problem('', `give schedule_id or task (status narrows either), or ${statusAlone}`);
  } else if (!byOwner && isJobStatus(raw.status) && !isUnsuccessfulOutcome(raw.status)) {
    check.problem(
      'status',
      `without schedule_id or task, must be one of ${UNSUCCESSFUL_OUTCOMES.join(', ')}`,
    );
  }
  for (const field of ['since', 'until'] as const) {
    if (byOwner && raw[field] !== undefined) {
      check.problem(field, `narrows only ${statusAlone} (by finish time); leave out schedule_id and task`);
    }
  }
  if (parsed?.since !== undefined && parsed.until !== undefined && parsed.until <= parsed.since) {
    check.problem('until', `must be later than since (${new Date(parsed.since).toISOString()})`);
  }
  const { params } = check.valid({ params: parsed });
  const page = await listJobsWithDispatchedFires(
    context,
    {
      ...(params.schedule_id !== undefined && { scheduleId: params.schedule_id }),
      ...(params.task !== undefined && { task: params.task }),
      ...(params.status !== undefined && { status: params.status }),
      ...(params.metadata !== undefined && { metadata: params.metadata }),
      ...(params.since !== undefined && { finishedFrom: params.since }),
      ...(params.until !== undefined && { finishedBefore: params.until }),
    },
    { limit: params.limit, ...(params.cursor !== undefined && { cursor: params.cursor }) },
  );
  const waits = await waitsByTask(context, page.items);
  return { jobs: page.items.map((job) => wireJob(job, waitsOf(waits, job))), cursor: page.cursor ?? null };
};

/**
 * `get_job_result`: the result of a finished job; `no_result_yet` while it is queued, running or retrying.
 * With `wait_seconds`, it answers as soon as the result exists, or `no_result_yet` when the wait ran out.
 */
export const getJobResult: ActionHandler<'get_job_result'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const { job_id: jobId, wait_seconds: waitSeconds = 0 } = check.valid({
    params: check.params(jobResultParams, raw),
  }).params;
  const stored = await context.deps.jobStore.getJob(jobId, context.now);
  const first = stored ?? (waitSeconds > 0 ? await dispatchedFireJob(jobId, context) : undefined);
  if (!first) throw new JobNotFoundError(jobId);
  const job = waitSeconds > 0 ? await waitForResult(context, first, waitSeconds * 1000, !stored) : first;
  if (!job) throw new JobNotFoundError(jobId);
  // A finished job always has its result; the check only spares the caller a null.
  if (!isFinalStatus(job.status) || job.result === null) throw new NoResultYetError(jobId, job.status);
  return { job_id: job.id, status: job.status, result: wireJobResult(job.result) };
};

/**
 * `cancel_job`: a job that has not started never will. Works for jobs the store knows and for fires a
 * tick already sent to the queue (`<scheduleId>@<fireTime>`, while `get_job` shows them as queued);
 * cancelling twice is fine. A running job is asked to stop (`cancel_requested_at`): its worker aborts
 * the handler's signal within `CANCEL_CHECK_MS` and records `cancelled` once the handler settled.
 */
export const cancelJob: ActionHandler<'cancel_job'> = async (raw, context) => {
  const jobId = validJobId(raw, context);
  const { jobStore } = context.deps;
  const existing = await jobStore.getJob(jobId, context.now);
  if (existing?.status === 'running') return askToStop(jobId, context);
  // A cancelled job goes to the store too: a fire cancelled because its schedule changed may still be
  // claimed by the fire sent in its place, and a user's cancellation makes that final.
  if (existing && !['queued', 'retrying', 'cancelled'].includes(existing.status)) {
    throw new JobNotCancellableError(jobId, existing.status);
  }
  const fire = existing ? undefined : await dispatchedFireJob(jobId, context);
  const taskId = existing?.task ?? fire?.task;
  if (taskId === undefined) throw new JobNotFoundError(jobId);

  const ttlOverride = (existing ?? fire)?.overrides?.resultTtlSeconds;
  const expiresAt =
    context.now + (ttlOverride === undefined ? resultTtlMsOf(taskId, context) : ttlOverride * 1000);
  const cancelled = await jobStore.cancelJob(jobId, context.now, expiresAt, fire && jobRequestOf(fire));
  // Claimed since it was read: asked to stop instead
  if (!cancelled) return askToStop(jobId, context);
  const { scheduleId, fireTime } = cancelled;
  await publishAfterWrite(context, [
    ...(existing?.status === 'cancelled' ? [] : jobCancelledEvents(context, cancelled)),
    // Cancelling the last fire of a finished schedule ends its last job: the schedule is cleaned up.
    ...(scheduleId !== null && fireTime !== null
      ? await cleanUpIfFinished(context, scheduleId, fireTime)
      : []),
  ]);
  return { job: wireJob(cancelled) };
};

/** Asks a running job to stop; one that is no longer running (it ended meanwhile) cannot be cancelled. */
async function askToStop(jobId: string, context: ActionContext) {
  const { jobStore } = context.deps;
  const asked = await jobStore.requestCancel(jobId, context.now);
  if (asked) return { job: wireJob(asked) };
  const current = await jobStore.getJob(jobId, context.now);
  throw new JobNotCancellableError(jobId, current?.status ?? 'absent');
}

function isJobStatus(value: unknown): value is JobStatus {
  return (JOB_STATUSES as readonly unknown[]).includes(value);
}
