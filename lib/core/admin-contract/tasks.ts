import * as z from 'zod';
import { taskId } from './fields';

/** The task actions of the admin API (docs/admin-api.md, "Tasks"). */

export const listTasksParams = z.strictObject({});

export const taskIdParams = z.strictObject({ task: taskId });

/** A deployed task as the admin API answers it. */
export interface WireTask {
  id: string;
  max_running_jobs: number | null;
  /** At most `max` jobs start in any `per_seconds` seconds (the task's `rateLimit`); null: no rate limit. */
  rate_limit: { max: number; per_seconds: number } | null;
  misfire_grace_seconds: number | null;
  timeout_seconds: number;
  retry: { max_attempts: number; backoff_seconds: number; max_backoff_seconds: number };
  result_ttl_seconds: number;
  events: string;
  has_payload_schema: boolean;
  /** Jobs running now, as counted by the task's counter. */
  running: number;
  /** Jobs waiting in the task's line for a slot (or for the task to be resumed). */
  waiting: number;
  /** Paused by `pause_task`: its jobs wait in its line until `resume_task`. */
  paused: boolean;
}

/** What the task actions answer. */
export interface TaskResults {
  list_tasks: { tasks: WireTask[] };
  pause_task: { task: WireTask };
  resume_task: { task: WireTask; woken_jobs: number };
}

/** The request schema of each task action. */
export const TASK_REQUESTS = {
  list_tasks: listTasksParams,
  pause_task: taskIdParams,
  resume_task: taskIdParams,
} as const;
