import type { AdminResults } from '../../core/admin-contract';

/** The admin API's records and pages as the CLI reads them: all from the contract (lib/core/admin-contract). */
export type {
  WireFireTime,
  WireJob,
  WireJobResult,
  WireSchedule,
  WireTask,
} from '../../core/admin-contract';

export type SchedulePage = AdminResults['list_schedules'];
export type JobPage = AdminResults['list_jobs'];
