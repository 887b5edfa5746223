import { quote, quoteId, shorten } from './quote';

/**
 * The code of every error Sundial raises on purpose. The admin API answers with some of them
 * (lib/core/admin-contract/errors.ts says which), so a new one must be placed there too.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unknown_action'
  | 'unknown_task'
  | 'conflicting_id'
  | 'schedule_not_found'
  | 'job_not_found'
  | 'version_conflict'
  | 'managed_by_code'
  | 'no_result_yet'
  | 'job_not_cancellable'
  | 'job_not_retryable'
  | 'invalid_task_config'
  | 'unavailable'
  | 'store_unavailable'
  | 'lease_lost'
  | 'non_retryable'
  | 'trigger_max_iterations';

/**
 * Every error Sundial raises on purpose derives from {@link SundialError}. Each has a stable
 * machine-readable `code` (used by the admin API) and a message that says what was wrong, where,
 * and what is allowed.
 */
export class SundialError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One problem with a caller's input: the field path (`trigger.expression`) and what is allowed. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** At most this many problems are reported, then how many more there were. */
export const MAX_REPORTED_ISSUES = 20;
const MAX_PATH_CHARS = 200;
const MAX_ISSUE_MESSAGE_CHARS = 1_000;

/**
 * The caller's input is invalid. Lists the problems found (the first {@link MAX_REPORTED_ISSUES}, then
 * how many more), each naming its field. Nothing was written.
 */
export class ValidationError extends SundialError {
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], options?: { cause?: unknown }) {
    const reported = boundedIssues(issues);
    super('invalid_input', reported.map(formatIssue).join('; '), options);
    this.issues = reported;
  }

  static single(path: string, message: string): ValidationError {
    return new ValidationError([{ path, message }]);
  }
}

/**
 * Paths and messages can hold what the caller sent (field names, values a payload schema quotes), and a
 * request can have any number of problems: the answer stays small whatever came in.
 */
function boundedIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const bounded = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({
    path: shorten(issue.path, MAX_PATH_CHARS),
    message: shorten(issue.message, MAX_ISSUE_MESSAGE_CHARS),
  }));
  const more = issues.length - bounded.length;
  if (more > 0) bounded.push({ path: '', message: `and ${more} more problem${more === 1 ? '' : 's'}` });
  return bounded;
}

function formatIssue(issue: ValidationIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** A schedule or job with this id exists already and the conflict policy is `exception`. */
export class ConflictingIdError extends SundialError {
  constructor(kind: 'schedule' | 'job', id: string) {
    super(
      'conflicting_id',
      `${kind} ${quoteId(id)} already exists; use conflict_policy 'replace' or 'do_nothing' to change how conflicts are handled`,
    );
  }
}

/**
 * The admin API was asked to change the definition of a schedule declared in code: that changes only in
 * code, by the next deploy. Pausing, resuming and running it now stay allowed (operational state).
 */
export class ManagedByCodeError extends SundialError {
  constructor(
    readonly scheduleId: string,
    declaredIn: string,
  ) {
    super(
      'managed_by_code',
      `schedule ${quoteId(scheduleId)} is declared in code (${shorten(declaredIn, 200)}): change or remove it there and deploy; pause_schedule, resume_schedule and run_schedule_now still work on it`,
    );
  }
}

/** Code declares a schedule whose id belongs to a schedule added through the admin API. */
export class ManagedByApiError extends SundialError {
  constructor(readonly scheduleId: string) {
    super(
      'conflicting_id',
      `schedule ${quoteId(scheduleId)} exists and is managed through the admin API, so code cannot declare it: rename the declaration, or remove that schedule (remove_schedule) and deploy again`,
    );
  }
}

export class ScheduleNotFoundError extends SundialError {
  constructor(readonly scheduleId: string) {
    super('schedule_not_found', `schedule ${quoteId(scheduleId)} does not exist`);
  }
}

export class JobNotFoundError extends SundialError {
  constructor(readonly jobId: string) {
    super('job_not_found', `job ${quoteId(jobId)} does not exist (or its result has expired)`);
  }
}

export class TaskNotFoundError extends SundialError {
  constructor(
    readonly taskId: string,
    known: readonly string[],
  ) {
    super(
      'unknown_task',
      `task ${quote(taskId)} is not registered; known tasks: ${known.length ? known.join(', ') : '(none: add a module to functions/)'}`,
    );
  }
}

/** A write expected this version of the schedule, but someone changed it first. Read again and retry. */
export class VersionConflictError extends SundialError {
  constructor(
    scheduleId: string,
    expected: number,
    message = `schedule ${quoteId(scheduleId)} was changed concurrently (expected version ${expected})`,
  ) {
    super('version_conflict', message);
  }
}

/**
 * A change that takes back the fires sent ahead found the schedule dispatched further since it was read
 * (its last fire time moved): what to take back changed. Read again and retry.
 */
export class ScheduleMovedError extends VersionConflictError {
  constructor(scheduleId: string, expected: number) {
    super(
      scheduleId,
      expected,
      `schedule ${quoteId(scheduleId)} was dispatched further while it was changed (version ${expected})`,
    );
  }
}

/** The caller no longer owns the lease it tried to use (it expired and someone else took it). */
export class LeaseLostError extends SundialError {
  constructor(kind: 'schedule' | 'job', id: string, owner: string) {
    super('lease_lost', `${kind} '${id}' is no longer leased by '${owner}'`);
  }
}

/** The store kept failing with throttling or transient errors after bounded retries. */
export class StoreUnavailableError extends SundialError {
  constructor(operation: string, options?: { cause?: unknown }) {
    super('store_unavailable', `the store did not answer '${operation}' after retries`, options);
  }
}

/**
 * Throw this from a task handler to fail the job without further retries.
 *
 * @example
 * import { NonRetryableError } from 'sundial';
 * if (!customer) throw new NonRetryableError(`customer ${id} was deleted`);
 */
export class NonRetryableError extends SundialError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('non_retryable', message, options);
  }
}
