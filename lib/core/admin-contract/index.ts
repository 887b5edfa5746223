/**
 * The admin API's contract, shared by the admin handler (lib/runtime/admin), the CLI and the
 * dashboard: action names, request schemas, the records and results on the wire, error codes, and
 * where the local platform serves it. docs/admin-api.md describes it for people.
 */
export {
  ACTION_NAMES,
  ADMIN_REQUESTS,
  type AdminAction,
  type AdminFields,
  type AdminParams,
  type AdminResults,
  isAdminAction,
} from './actions';
export { LOCAL_ADMIN_FUNCTION, LOCAL_ADMIN_PORT } from './endpoint';
export {
  ADMIN_CODE_OF,
  ADMIN_ERROR_CODES,
  type AdminErrorBody,
  type AdminErrorCode,
  type AdminResponse,
} from './errors';
export {
  type AddedJob,
  type WireJob,
  type WireJobResult,
  type WireWait,
  wireJob,
  wireJobResult,
} from './jobs';
export {
  DEFAULT_PAYLOAD,
  MAX_PREVIEW_COUNT,
  SCHEDULE_CHANGE_FIELDS,
  scheduleChangesOfRequest,
  scheduleOfRequest,
  type WireFireTime,
  type WireManagement,
  type WireSchedule,
  wireSchedule,
} from './schedules';
export type { WireTask } from './tasks';
