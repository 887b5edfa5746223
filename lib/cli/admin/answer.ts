import type {
  AdminErrorBody as AdminApiErrorBody,
  AdminErrorCode,
  AdminResponse,
} from '../../core/admin-contract';

/** The admin API's answers as the CLI sees them (the contract: lib/core/admin-contract). */
export type AdminAnswer<Result = unknown> = AdminResponse<Result>;

/** An error the CLI reports: the admin API's, or `unreachable` when the admin API could not be reached. */
export interface AdminErrorBody extends Omit<AdminApiErrorBody, 'code'> {
  code: AdminErrorCode | 'unreachable';
}

/** A field problem of an `invalid_input` answer. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * The admin API answered `{ ok: false }`. `fieldFlags` maps request fields to the flags that set
 * them (`max_jitter_seconds` → `--jitter`), so a message can point at what the user typed.
 */
export class AdminAnswerError extends Error {
  readonly code: AdminErrorCode;
  readonly details: FieldProblem[];

  constructor(
    error: AdminApiErrorBody,
    readonly fieldFlags: Readonly<Record<string, string>> = {},
  ) {
    super(error.message);
    this.name = 'AdminAnswerError';
    this.code = error.code;
    this.details = fieldProblems(error.details);
  }
}

/** The admin function could not be invoked, or it crashed (a Lambda `FunctionError`). */
export class AdminUnavailableError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'AdminUnavailableError';
  }
}

/** Checks that a decoded Lambda payload is an admin answer; anything else means the function is not Sundial's admin API. */
export function asAdminAnswer(value: unknown, source: string): AdminAnswer {
  if (typeof value === 'object' && value !== null && 'ok' in value) {
    const answer = value as { ok: unknown; result?: unknown; error?: unknown };
    if (answer.ok === true) return { ok: true, result: answer.result };
    if (answer.ok === false && isErrorBody(answer.error)) return { ok: false, error: answer.error };
  }
  const shown = JSON.stringify(value)?.slice(0, 200) ?? String(value);
  throw new AdminUnavailableError(
    `${source} answered something that is not an admin API answer: ${shown}`,
    'check that the function is the Sundial admin function (--function, SUNDIAL_ADMIN_FUNCTION)',
  );
}

function isErrorBody(value: unknown): value is AdminApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.code === 'string' && typeof body.message === 'string';
}

function fieldProblems(details: unknown): FieldProblem[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail) => {
    if (typeof detail !== 'object' || detail === null) return [];
    const { path, message } = detail as Record<string, unknown>;
    return [{ path: typeof path === 'string' ? path : '', message: String(message) }];
  });
}
