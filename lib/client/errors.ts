import type { AdminErrorBody, AdminErrorCode } from '../core/admin-contract/errors';
import type { ValidationIssue } from '../core/errors';

/**
 * The admin API refused a call: its `code` (`invalid_input`, `conflicting_id`, `schedule_not_found`,
 * `managed_by_code`, …), its message, and for `invalid_input` the `field` of the first problem and every
 * problem in `issues`.
 *
 * @example
 * try { await sundial.addJob('send-report', payload, { job_id: 'once' }); }
 * catch (error) {
 *   if (isSundialError(error, 'conflicting_id')) console.log('already queued');
 *   else throw error;
 * }
 */
export class SundialApiError<Code extends AdminErrorCode = AdminErrorCode> extends Error {
  readonly code: Code;
  /** The field of the first problem (`payload.team`), or null when the error is not about a field. */
  readonly field: string | null;
  readonly issues: readonly ValidationIssue[];

  constructor(body: AdminErrorBody & { code: Code }) {
    super(body.message);
    this.name = 'SundialApiError';
    this.code = body.code;
    this.issues = body.details ?? [];
    this.field = this.issues[0]?.path || null;
  }
}

/** The admin API could not be reached, or its function failed (not an answer of the API). */
export class SundialUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SundialUnavailableError';
  }
}

/** Whether `error` is the admin API's answer, with this code when one is given. */
export function isSundialError<Code extends AdminErrorCode>(
  error: unknown,
  code?: Code,
): error is SundialApiError<Code> {
  return error instanceof SundialApiError && (code === undefined || error.code === code);
}
