import { SundialError } from '../../core/errors';
import { quote, quoteId } from '../../core/quote';

/** The request named an action the admin API does not have. */
export class UnknownActionError extends SundialError {
  constructor(action: string, known: readonly string[]) {
    super('unknown_action', `unknown action ${quote(action)}; actions: ${known.join(', ')}`);
  }
}

/** A task's own options are unusable (a deployment mistake, not the caller's). */
export class TaskConfigurationError extends SundialError {
  constructor(taskId: string, problem: string, options?: { cause?: unknown }) {
    super('invalid_task_config', `task '${taskId}' is misconfigured: ${problem}`, options);
  }
}

/** The job exists but has not finished, so it has no result to show yet. */
export class NoResultYetError extends SundialError {
  constructor(
    readonly jobId: string,
    readonly status: string,
  ) {
    super(
      'no_result_yet',
      `job ${quoteId(jobId)} has no result yet (status ${status}); ask again once it has finished`,
    );
  }
}

/** Only a job that ended in error, missed_start_deadline or abandoned can be retried. */
export class JobNotRetryableError extends SundialError {
  constructor(
    readonly jobId: string,
    readonly status: string,
  ) {
    super(
      'job_not_retryable',
      `job ${quoteId(jobId)} cannot be retried: it is ${status}; only jobs that ended in error, missed_start_deadline or abandoned can be retried`,
    );
  }
}

/** Only a job that has not started can be cancelled. */
export class JobNotCancellableError extends SundialError {
  constructor(
    readonly jobId: string,
    readonly status: string,
  ) {
    super(
      'job_not_cancellable',
      `job ${quoteId(jobId)} cannot be cancelled: it is ${status}; a job that has ended cannot be cancelled`,
    );
  }
}
