import type { z } from 'zod';
import { JOB_RECOVERY_REQUESTS, type JobRecoveryResults } from './job-recovery';
import { JOB_REQUESTS, type JobResults } from './jobs';
import { SCHEDULE_REQUESTS, type ScheduleResults } from './schedules';
import { TASK_REQUESTS, type TaskResults } from './tasks';

/** Every action of the admin API by its wire name, with the schema of its fields (the request minus `action`). */
export const ADMIN_REQUESTS = {
  ...SCHEDULE_REQUESTS,
  ...JOB_REQUESTS,
  ...JOB_RECOVERY_REQUESTS,
  ...TASK_REQUESTS,
} as const;

export type AdminAction = keyof typeof ADMIN_REQUESTS;
export const ACTION_NAMES = Object.keys(ADMIN_REQUESTS) as AdminAction[];

/** What each action answers in `{ ok: true, result }`. */
export interface AdminResults extends ScheduleResults, JobResults, JobRecoveryResults, TaskResults {}

/**
 * The fields an action's request may carry. Their names are checked when compiled; their values by
 * the admin API, whose messages name the rule (the CLI forwards what the user typed).
 */
export type AdminFields<Action extends AdminAction> = string extends keyof RequestInput<Action>
  ? Record<string, never>
  : { readonly [Field in keyof RequestInput<Action>]?: unknown };

type RequestInput<Action extends AdminAction> = z.input<(typeof ADMIN_REQUESTS)[Action]>;

/** An action's fields after validation. */
export type AdminParams<Action extends AdminAction> = z.output<(typeof ADMIN_REQUESTS)[Action]>;

export function isAdminAction(name: string): name is AdminAction {
  return Object.hasOwn(ADMIN_REQUESTS, name);
}
