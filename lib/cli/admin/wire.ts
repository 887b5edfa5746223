import type { WireJob, WireSchedule } from '../../core/admin-wire';

export type { WireJob, WireJobResult, WireSchedule, WireTask } from '../../core/admin-wire';

/** The admin API's answers as the CLI reads them; the records themselves are defined in lib/core/admin-wire.ts. */

export interface WireFireTime {
  utc: string;
  local: string;
}

export interface SchedulePage {
  schedules: WireSchedule[];
  cursor: string | null;
}

export interface JobPage {
  jobs: WireJob[];
  cursor: string | null;
}
