import {
  InvokeCommand,
  type InvokeCommandOutput,
  LambdaClient,
  type LambdaClientConfig,
} from '@aws-sdk/client-lambda';
import type { z } from 'zod';
import type {
  ADMIN_REQUESTS,
  AdminAction,
  AdminResponse,
  AdminResults,
  WireJob,
  WireJobResult,
  WireSchedule,
} from '../core/admin-contract';
import type { JobStatus } from '../core/model/job';
import { SundialApiError, SundialUnavailableError } from './errors';
import { resolveTarget, type SundialTarget } from './target';
import type { PayloadOf, ResultOf, TaskId, TaskMap } from './task-types';

/** The fields an action takes, as the admin API documents them (docs/admin-api.md). */
type Request<Action extends AdminAction> = z.input<(typeof ADMIN_REQUESTS)[Action]>;

/** `add_job`'s options: when, an id, a conflict policy, overrides, metadata, priority. */
export type JobOptions = Omit<Request<'add_job'>, 'task' | 'payload'>;
/** `add_schedule`'s fields, the task and payload typed. */
export type ScheduleRequest<Tasks extends TaskMap, Task extends TaskId<Tasks>> = Omit<
  Request<'add_schedule'>,
  'task' | 'payload'
> & { task: Task; payload?: PayloadOf<Tasks[Task]> };

/** A job of a known task: what `addJob` answers, and what `getJobResult` and `cancelJob` take. */
export interface JobRef<Task extends string = string> {
  readonly id: string;
  readonly task: Task;
}

/** A job as the admin API answers it, its task known. */
export type TypedJob<Task extends string> = WireJob & { task: Task };

/** A job's outcome, its `return_value` typed by the task's handler. */
export type TypedJobResult<Result> = Omit<WireJobResult, 'return_value'> & { return_value?: Result };

export interface JobRun<Result> {
  job_id: string;
  status: JobStatus;
  /** The outcome once the job finished within the wait; else null (ask `getJobResult` later). */
  result: TypedJobResult<Result> | null;
}

export type SundialClientOptions = SundialTarget & {
  /** The Lambda client's settings (region, credentials, profile…). */
  readonly lambda?: LambdaClientConfig;
};

/**
 * Sundial's admin API for application code, typed from the task modules: a task id, a payload field or a
 * result's shape that does not match `functions/` is a compile error (the task map is
 * `functions/tasks.d.ts`, which `npm start` writes). It invokes the admin Lambda with the AWS SDK's Lambda
 * client and the caller's credentials, or the local platform; answers refused by the API throw
 * `SundialApiError` with their `code` and `field`.
 *
 * @example
 * import { SundialClient } from 'sundial/client';
 * import type { SundialTasks } from './functions/tasks';
 *
 * const sundial = new SundialClient<SundialTasks>({ local: true });
 * const run = await sundial.runJob('send-report', { team: 'ops', recipients: ['ops@example.com'] }, { wait_seconds: 10 });
 * if (run.result?.outcome === 'success') console.log(run.result.return_value?.recipientCount);
 */
export class SundialClient<Tasks extends TaskMap> {
  private readonly lambda: LambdaClient;
  private readonly functionName: string;

  constructor(options: SundialClientOptions) {
    const { functionName, config } = resolveTarget(options, options.lambda);
    this.functionName = functionName;
    this.lambda = new LambdaClient(config);
  }

  /** Adds a job of `task` (`add_job`): now, or at `run_at`. */
  async addJob<Task extends TaskId<Tasks>>(
    task: Task,
    payload: PayloadOf<Tasks[Task]>,
    options: JobOptions = {},
  ): Promise<Omit<AdminResults['add_job'], 'job'> & { job: TypedJob<Task> }> {
    const added = await this.call('add_job', { ...options, task, payload });
    return { ...added, job: added.job as TypedJob<Task> };
  }

  /** Adds a job and waits up to `wait_seconds` for its result (`run_job`). */
  async runJob<Task extends TaskId<Tasks>>(
    task: Task,
    payload: PayloadOf<Tasks[Task]>,
    options: JobOptions & { wait_seconds?: number } = {},
  ): Promise<JobRun<ResultOf<Tasks[Task]>>> {
    return (await this.call('run_job', { ...options, task, payload })) as JobRun<ResultOf<Tasks[Task]>>;
  }

  /** The result of a finished job (`get_job_result`), waiting up to `wait_seconds`; typed for a `JobRef`. */
  async getJobResult<Task extends TaskId<Tasks>>(
    job: JobRef<Task>,
    options?: { wait_seconds?: number },
  ): Promise<{ job_id: string; status: JobStatus; result: TypedJobResult<ResultOf<Tasks[Task]>> }>;
  async getJobResult(
    jobId: string,
    options?: { wait_seconds?: number },
  ): Promise<{ job_id: string; status: JobStatus; result: TypedJobResult<unknown> }>;
  async getJobResult(
    job: JobRef | string,
    options: { wait_seconds?: number } = {},
  ): Promise<{ job_id: string; status: JobStatus; result: TypedJobResult<unknown> }> {
    return this.call('get_job_result', { ...options, job_id: typeof job === 'string' ? job : job.id });
  }

  async getJob(jobId: string): Promise<WireJob> {
    return (await this.call('get_job', { job_id: jobId })).job;
  }

  /** Cancels a job that has not started (`cancel_job`). */
  async cancelJob(job: JobRef | string): Promise<WireJob> {
    return (await this.call('cancel_job', { job_id: typeof job === 'string' ? job : job.id })).job;
  }

  /** Adds a schedule (`add_schedule`); its payload is typed by its task. */
  async addSchedule<Task extends TaskId<Tasks>>(
    schedule: ScheduleRequest<Tasks, Task>,
  ): Promise<AdminResults['add_schedule']> {
    return this.call('add_schedule', schedule);
  }

  /** Changes a schedule's fields (`update_schedule`; `null` clears an optional one). */
  async updateSchedule(changes: Request<'update_schedule'>): Promise<WireSchedule> {
    return (await this.call('update_schedule', changes)).schedule;
  }

  async getSchedule(id: string): Promise<WireSchedule> {
    return (await this.call('get_schedule', { id })).schedule;
  }

  async listSchedules(filter: Request<'list_schedules'> = {}): Promise<AdminResults['list_schedules']> {
    return this.call('list_schedules', filter);
  }

  async pauseSchedule(id: string): Promise<WireSchedule> {
    return (await this.call('pause_schedule', { id })).schedule;
  }

  async resumeSchedule(id: string, options: { replay_missed?: boolean } = {}): Promise<WireSchedule> {
    return (await this.call('resume_schedule', { ...options, id })).schedule;
  }

  async removeSchedule(id: string): Promise<void> {
    await this.call('remove_schedule', { id });
  }

  /** One job now with the schedule's task and payload (`run_schedule_now`). */
  async runScheduleNow(id: string): Promise<WireJob> {
    return (await this.call('run_schedule_now', { id })).job;
  }

  /** Releases the Lambda client's sockets. */
  close(): void {
    this.lambda.destroy();
  }

  private async call<Action extends AdminAction>(
    action: Action,
    fields: object,
  ): Promise<AdminResults[Action]> {
    const answer = await this.invoke({ ...fields, action });
    if (!answer.ok) throw new SundialApiError(answer.error);
    return answer.result as AdminResults[Action];
  }

  private async invoke(request: object): Promise<AdminResponse> {
    let output: InvokeCommandOutput;
    try {
      output = await this.lambda.send(
        new InvokeCommand({
          FunctionName: this.functionName,
          Payload: new TextEncoder().encode(JSON.stringify(request)),
        }),
      );
    } catch (error) {
      throw new SundialUnavailableError(
        `cannot reach the admin function '${this.functionName}': ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const text = new TextDecoder().decode(output.Payload ?? new Uint8Array());
    if (output.FunctionError) {
      throw new SundialUnavailableError(`the admin function failed (${output.FunctionError}): ${text}`);
    }
    try {
      return JSON.parse(text) as AdminResponse;
    } catch {
      throw new SundialUnavailableError(
        `the admin function answered something other than JSON: ${text.slice(0, 200)}`,
      );
    }
  }
}
