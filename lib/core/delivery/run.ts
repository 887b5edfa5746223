import type { EpochMs } from '../clock';
import type { JobError, JobResult } from '../model/job';
import type { Schedule } from '../model/schedule';
import type { RunEnd } from '../ports/job-store';
import type { Delivery } from './delivery';
import { cappedStartRefused, checkedVerdict, type FireCancellation } from './fire-verdict';

/** The error type of a job `cancel_job` stopped while it ran, or ended before a later attempt ran. */
export const CANCELLED_ERROR_TYPE = 'CancelledError';

/** How a handler ended: a value, or an error and whether it may be tried again. */
export type HandlerOutcome =
  | { ok: true; value: import('../json').JsonValue | undefined }
  | { ok: false; error: JobError; retryable: boolean };

/** A claimed run, and what its machine has learnt (each step of `nextRunStep` adds one fact). */
export interface Run {
  delivery: Delivery;
  owner: string;
  /** Its `started_at`: when its fire check's read began (ADR 0002), else when it was claimed. */
  startedAt: EpochMs;
  /** When it was claimed. */
  claimedAt: EpochMs;
  leaseUntil: EpochMs;
  /** The claim took back a fire its check had cancelled: that cancellation was told already. */
  reclaimed: boolean;
  /** An earlier attempt was counted against its schedule's `max_runs`: it passed its fire check. */
  countedBefore: boolean;
  /** The claim found that `cancel_job` asked for the job while an earlier attempt ran: this one does not run it. */
  cancelRequestedAt?: EpochMs;
  /** An uncounted retry's schedule, read after the claim to count its start. */
  live?: { schedule: Schedule | undefined };
  /** A capped schedule's start counted (`startCappedRun`). */
  counted?: 'started' | 'gone' | 'full';
  /** The fire's cancellation was recorded (and its replacement sent). */
  cancelled?: boolean;
  /**
   * How the handler ended, whether it may still be running (it ignored its signal: it stops when its
   * sandbox ends, at `sandboxEnd` at the latest, and its retry must not start before), and whether
   * `cancel_job` stopped it (its outcome then says how it settled, and the run ends `cancelled`).
   */
  handler?: { outcome: HandlerOutcome; stillRunning: boolean; sandboxEnd: EpochMs; cancelled?: boolean };
  /** The run's ending was recorded: the store's answer (undefined: no result could be stored). */
  recorded?: { end: RunEnd | undefined };
  /** The message must come back (a retry or a replacement could not be sent: it takes their place). */
  keepMessage?: boolean;
}

/** What the run does next (each performed by the worker's run machine, `run-job.ts`). */
export type RunStep =
  | { kind: 'read_schedule' }
  | { kind: 'read_removal' }
  | { kind: 'count_start'; schedule: Schedule }
  | { kind: 'cancel'; cancellation: FireCancellation }
  | { kind: 'run_handler' }
  | { kind: 'record'; ending: RunEnding }
  | { kind: 'done'; keepMessage: boolean };

/** How a handler's outcome is recorded: another attempt at `retryAt`, or a final result. */
export type RunEnding = { kind: 'retry'; error: JobError } | { kind: 'final'; result: JobResult };

/** What the run needs to know of its task's retry policy. */
export interface RetryTerms {
  maxAttempts: number;
}

/**
 * The next step of a claimed run. A schedule fire's checked delivery acts on what it read before the
 * claim (a change that returned before the read is seen; the claim stored the outcome, ADR 0002): a
 * fire its schedule no longer wants is cancelled (with a replacement when the current definition runs
 * it), and a capped schedule's start is counted before the handler runs. Then the handler, and its
 * ending (another attempt while the retry policy allows one).
 */
export function nextRunStep(run: Run, retry: RetryTerms, now: EpochMs): RunStep {
  const { delivery } = run;
  const { fire, job, reads } = delivery;
  if (run.cancelRequestedAt !== undefined && !run.cancelled && !run.handler) {
    return { kind: 'cancel', cancellation: cancelAskedBefore(run.cancelRequestedAt) };
  }
  if (fire && !run.cancelled && !run.handler) {
    if (!reads) throw new Error('a fire claimed before its check read its schedule');
    // Removed between the read and the count (its last fire ended first, out of order): the fire is
    // judged by the removal record, as if the read had found it gone.
    const gone = run.counted === 'gone';
    if (gone && !reads.removed) return { kind: 'read_removal' };
    const judged = gone ? { ...reads, schedule: undefined } : reads;
    const verdict = checkedVerdict(judged, job, fire, now);
    if (!verdict.run) return { kind: 'cancel', cancellation: verdict };
    // A fire judged against a finished schedule's removal record ran within its runs when it was sent.
    const count = judged.schedule && countStep(run, judged.schedule);
    if (count) return count;
  }
  if (!fire && job.origin === 'schedule' && !run.countedBefore && !run.cancelled && !run.handler) {
    const step = uncountedRetryStep(run);
    if (step) return step;
  }
  if (!run.cancelled && !run.handler) return { kind: 'run_handler' };
  return afterHandler(run, retry, now);
}

/**
 * A retry of a schedule's fire that no attempt counted: the worker of the attempt before vanished
 * after its check passed and before the count (its handler never started), and this attempt (the
 * reaper's, or a takeover) retries the run as stored, unchecked. Its start is counted now when the schedule has `max_runs`,
 * or refused when they have all started; uncounted, it would run past them (and a later change plans
 * its chain from the count). A retry of a schedule without `max_runs` costs this one read. (A schedule
 * given `max_runs` while an earlier attempt ran uncapped counted that fire among those dispatched
 * before the change; its retry counts it once more, as a takeover does: one run fewer, never more.)
 */
function uncountedRetryStep(run: Run): RunStep | undefined {
  if (!run.live) return { kind: 'read_schedule' };
  const live = run.counted === 'gone' ? undefined : run.live.schedule;
  return live && countStep(run, live);
}

/** A capped schedule's start is counted before its handler runs, and refused once `max_runs` started. */
function countStep(run: Run, live: Schedule): RunStep | undefined {
  if (live.maxRuns === null) return undefined;
  if (run.counted === undefined) return { kind: 'count_start', schedule: live };
  if (run.counted === 'full') return { kind: 'cancel', cancellation: cappedStartRefused(live) };
  return undefined;
}

/** A later attempt of a job `cancel_job` asked to stop while an earlier one ran: ended, not run. */
function cancelAskedBefore(askedAt: EpochMs): FireCancellation {
  return {
    run: false,
    error: {
      type: CANCELLED_ERROR_TYPE,
      message: `cancel_job asked at ${new Date(askedAt).toISOString()} for the job while an earlier attempt ran; no later attempt runs it`,
    },
    reclaimable: false,
  };
}

function afterHandler(run: Run, retry: RetryTerms, now: EpochMs): RunStep {
  if (run.handler && !run.recorded) {
    return { kind: 'record', ending: runEnding(run, run.handler.outcome, retry, now) };
  }
  return { kind: 'done', keepMessage: run.keepMessage === true };
}

/** How a handler's outcome is recorded: another attempt while the policy allows one, else the result. */
function runEnding(run: Run, outcome: HandlerOutcome, retry: RetryTerms, now: EpochMs): RunEnding {
  const { job, attempt } = run.delivery;
  // After a `retry_job`, the policy counts this job's attempts from there (`attemptBase`).
  const counted = attempt - (job.attemptBase ?? 0);
  if (run.handler?.cancelled && !outcome.ok) {
    return {
      kind: 'final',
      result: {
        outcome: 'cancelled',
        error: outcome.error,
        startedAt: run.startedAt,
        finishedAt: now,
        attempt,
      },
    };
  }
  if (!outcome.ok && outcome.retryable && counted < retry.maxAttempts)
    return { kind: 'retry', error: outcome.error };
  return {
    kind: 'final',
    result: {
      outcome: outcome.ok ? 'success' : 'error',
      ...(outcome.ok
        ? outcome.value === undefined
          ? {}
          : { returnValue: outcome.value }
        : { error: outcome.error }),
      startedAt: run.startedAt,
      finishedAt: now,
      attempt,
    },
  };
}
