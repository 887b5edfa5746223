/** The admin API's records and pages as the CLI reads them: all from the contract (lib/core/admin-contract). */
export type {
  WireFireTime,
  WireJob,
  WireJobResult,
  WireSchedule,
  WireTask,
  WireWait,
} from '../../core/admin-contract';
