import type { AdminAction } from '../core/admin-contract';

/**
 * What the dashboard page and its server agree on (the page is bundled from lib/dashboard/page and
 * imports this too): where the page sends admin requests, the header it sends, the actions the
 * server forwards, and the header carrying the server's clock.
 */
export const API_PATH = '/api/admin';

/** The header the page sends with every API call: a custom header forces a CORS preflight, which is never approved. */
export const DASHBOARD_HEADER = 'x-sundial-dashboard';

/** The server's clock (epoch ms) on every API answer: the page shows relative times against it. */
export const NOW_HEADER = 'x-sundial-now';

/** The admin actions the page uses; nothing else is forwarded (no adding, updating or removing from a browser). */
export const DASHBOARD_ACTIONS = [
  'list_schedules',
  'get_schedule',
  'pause_schedule',
  'resume_schedule',
  'run_schedule_now',
  'preview_schedule',
  'list_jobs',
  'get_job_result',
  'list_tasks',
  'pause_task',
  'resume_task',
] as const satisfies readonly AdminAction[];
export type DashboardAction = (typeof DASHBOARD_ACTIONS)[number];
