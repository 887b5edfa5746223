/**
 * The admin API's handler, read top-down: `protocol/` (the envelope, routing to a use case, answers
 * and their error codes), `validation/` (every problem of a request before anything is written), and
 * `use-cases/` (one module per action group). What it takes and answers is the contract in
 * lib/core/admin-contract.
 */
export type {
  AdminAction,
  AdminErrorBody,
  AdminResponse,
  WireJob,
  WireJobResult,
  WireSchedule,
  WireTask,
} from '../../core/admin-contract';
export { ACTION_NAMES } from '../../core/admin-contract';
export type { ActionContext } from './context';
export type { AdminDeps, AdminLogger } from './deps';
export {
  JobNotCancellableError,
  JobNotRetryableError,
  NoResultYetError,
  TaskConfigurationError,
  UnknownActionError,
} from './errors';
export { type AdminApi, type AdminRequestMeta, createAdminApi } from './protocol/router';
