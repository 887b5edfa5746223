import { SundialError, ValidationError } from '../../core/errors';
import type { AdminLogger } from './deps';

export interface AdminErrorBody {
  /** Stable and machine-readable: `invalid_input`, `unknown_action`, `schedule_not_found`, … */
  code: string;
  /** What was wrong, where, and what to do, for people. */
  message: string;
  /** For `invalid_input`: every problem as `{ path, message }`. */
  details?: unknown;
}

/** Every answer of the admin API: it never throws for a caller's mistake. */
export type AdminResponse<Result = unknown> =
  | { ok: true; result: Result }
  | { ok: false; error: AdminErrorBody };

/** Error codes whose wire name differs from the domain error's `code`. */
const WIRE_CODES: Readonly<Record<string, string>> = { store_unavailable: 'unavailable' };

export function success<Result>(result: Result): AdminResponse<Result> {
  return { ok: true, result };
}

/**
 * Turns anything thrown while serving a request into an answer. Sundial's own errors keep their code
 * and message; anything else is logged with its stack and answered without internals.
 */
export function failure(error: unknown, requestId: string, logger: AdminLogger): AdminResponse<never> {
  if (error instanceof ValidationError) {
    return { ok: false, error: { code: error.code, message: error.message, details: error.issues } };
  }
  if (error instanceof SundialError) {
    const code = WIRE_CODES[error.code] ?? error.code;
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
