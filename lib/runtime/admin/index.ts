export type { ActionContext } from './context';
export type { AdminDeps, AdminLogger } from './deps';
export {
  JobNotCancellableError,
  NoResultYetError,
  TaskConfigurationError,
  UnknownActionError,
} from './errors';
export type { AdminErrorBody, AdminResponse } from './response';
export {
  ACTION_NAMES,
  type AdminAction,
  type AdminApi,
  type AdminRequestMeta,
  createAdminApi,
} from './router';
export type { WireJob, WireJobResult, WireSchedule, WireTask } from './wire';
