import type { ErrorCode, ValidationIssue } from '../errors';

/**
 * The error registry of the admin API: every `code` an answer can carry (docs/admin-api.md, "Error
 * codes", lists the same; a test compares them), and which domain error answers with which.
 */
export const ADMIN_ERROR_CODES = [
  'invalid_input',
  'unknown_action',
  'unknown_task',
  'conflicting_id',
  'schedule_not_found',
  'job_not_found',
  'version_conflict',
  'managed_by_code',
  'no_result_yet',
  'job_not_cancellable',
  'job_not_retryable',
  'invalid_task_config',
  'unavailable',
  'internal_error',
] as const;
export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/**
 * The code each domain error answers with; null for errors that are never the caller's to handle
 * (they are logged with their stack and answered as `internal_error`).
 */
export const ADMIN_CODE_OF: Readonly<Record<ErrorCode, AdminErrorCode | null>> = {
  invalid_input: 'invalid_input',
  unknown_action: 'unknown_action',
  unknown_task: 'unknown_task',
  conflicting_id: 'conflicting_id',
  schedule_not_found: 'schedule_not_found',
  job_not_found: 'job_not_found',
  version_conflict: 'version_conflict',
  managed_by_code: 'managed_by_code',
  no_result_yet: 'no_result_yet',
  job_not_cancellable: 'job_not_cancellable',
  job_not_retryable: 'job_not_retryable',
  invalid_task_config: 'invalid_task_config',
  unavailable: 'unavailable',
  store_unavailable: 'unavailable',
  lease_lost: null,
  non_retryable: null,
  trigger_max_iterations: null,
};

export interface AdminErrorBody {
  /** Stable and machine-readable. */
  code: AdminErrorCode;
  /** What was wrong, where, and what to do, for people. */
  message: string;
  /** For `invalid_input`: every problem with its field path. */
  details?: ValidationIssue[];
}

/** Every answer of the admin API: it never throws for a caller's mistake. */
export type AdminResponse<Result = unknown> =
  | { ok: true; result: Result }
  | { ok: false; error: AdminErrorBody };
