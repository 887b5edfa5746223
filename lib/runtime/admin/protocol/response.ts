import { ADMIN_CODE_OF, type AdminResponse } from '../../../core/admin-contract';
import { SundialError, ValidationError } from '../../../core/errors';
import type { AdminLogger } from '../deps';

export function success<Result>(result: Result): AdminResponse<Result> {
  return { ok: true, result };
}

/**
 * Turns anything thrown while serving a request into an answer. Sundial's own errors answer with the
 * code the contract's registry gives them (lib/core/admin-contract/errors.ts) and their message;
 * anything else is logged with its stack and answered as `internal_error`, without internals.
 */
export function failure(error: unknown, requestId: string, logger: AdminLogger): AdminResponse<never> {
  if (error instanceof ValidationError) {
    return {
      ok: false,
      error: { code: 'invalid_input', message: error.message, details: [...error.issues] },
    };
  }
  const code = error instanceof SundialError ? ADMIN_CODE_OF[error.code] : null;
  if (error instanceof SundialError && code !== null) {
    if (code === 'unavailable')
      logger.warn('admin request failed: store unavailable', errorFields(error, requestId));
    return { ok: false, error: { code, message: error.message } };
  }
  logger.error('admin request failed unexpectedly', errorFields(error, requestId));
  return {
    ok: false,
    error: { code: 'internal_error', message: `internal error; see the logs (request id ${requestId})` },
  };
}

function errorFields(error: unknown, requestId: string): Record<string, unknown> {
  if (error instanceof Error) {
    return {
      requestId,
      error: { name: error.name, message: error.message, stack: error.stack, cause: error.cause },
    };
  }
  return { requestId, error: String(error) };
}
