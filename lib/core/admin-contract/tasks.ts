import { z } from 'zod';

/** The task actions of the admin API (docs/admin-api.md, "Tasks"). */

export const listTasksParams = z.strictObject({});

/** A deployed task as the admin API answers it. */
export interface WireTask {
  id: string;
  max_running_jobs: number | null;
  misfire_grace_seconds: number | null;
  timeout_seconds: number;
  retry: { max_attempts: number; backoff_seconds: number; max_backoff_seconds: number };
  result_ttl_seconds: number;
  events: string;
  has_payload_schema: boolean;
  /** Jobs running now, as counted by the task's counter. */
  running: number;
}

/** What the task actions answer. */
export interface TaskResults {
  list_tasks: { tasks: WireTask[] };
}

/** The request schema of each task action. */
export const TASK_REQUESTS = { list_tasks: listTasksParams } as const;
