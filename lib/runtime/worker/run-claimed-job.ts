import type { EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { JobResult } from '../../core/model/job';
import type { JobEvent } from '../../core/ports/event-publisher';
import { parksBeyondQueueDelay } from '../../core/ports/job-queue';
import type { JobRequest } from '../../core/ports/job-store';
import { retryMessage } from '../dispatch/job-messages';
import type { Logger } from '../observability/logger';
import { resultTtlSecondsOf, type TaskDefinition } from '../tasks/define-task';
import { retryDelayMs } from './backoff';
import { alignRateStart } from './rate-start';
import { storeFinalResult, writeWithRetries } from './result-writes';
import { type HandlerOutcome, runTaskHandler } from './run-handler';
import type { MessageOutcome, WorkerContext } from './worker-context';

export interface ClaimedJob {
  job: JobRequest;
  attempt: number;
  owner: string;
  definition: TaskDefinition;
  startedAt: EpochMs;
  /** The run's lease as claimed: its outcome is written before it ends. */
  leaseUntil: EpochMs;
  logger: Logger;
  /** The claim took back a fire that a schedule check cancelled (`ClaimOutcome.reclaimed`). */
  reclaimed?: boolean;
}

/**
 * Runs a claimed job and records how it ended: a result (which also returns the slot), or another
 * attempt. A lost lease (the reaper took the job over) is logged; the job is then the reaper's.
 */
export async function runClaimedJob(ctx: WorkerContext, claimed: ClaimedJob): Promise<MessageOutcome> {
  const { deps } = ctx;
  const { job, attempt, definition, startedAt, logger } = claimed;
  ctx.counters.startLagMs.push(Math.max(0, startedAt - job.runAt));
  ctx.events.add(definition.events, eventOf(claimed, 'job.started', startedAt));

  await alignRateStart(ctx, claimed);
  // The timeout counts from the handler's start, not the claim's: a slow (throttled) claim must not
  // eat the handler's time and turn a run that did its work into a timeout and a second run.
  const handlerStart = deps.clock.now();
  const sandboxEnd = handlerStart + ctx.remainingMs();
  const invocationEnd = sandboxEnd - deps.config.workerSafetyMarginMs;
  const deadline = Math.min(handlerStart + definition.timeoutSeconds * 1000, invocationEnd);
  const { outcome, stillRunning } = await runTaskHandler({
    definition,
    payload: job.payload,
    context: {
      jobId: job.id,
      scheduleId: job.scheduleId,
      fireTime: job.fireTime === null ? null : new Date(job.fireTime),
      attempt,
      metadata: job.metadata ?? {},
      logger,
    },
    deadline,
    // The slot and lease stay held while a timed-out handler runs on (the lease covers it: `runLeaseUntil`).
    holdUntil: ctx.endsSandbox && Number.isFinite(invocationEnd) ? invocationEnd : null,
    clock: deps.clock,
    sleep: deps.sleep,
    onDeadline: () => ctx.onHandlerDeadline?.(job.id),
  });
  if (stillRunning) {
    ctx.stillRunning.push(job.id);
    logger.error(
      'the handler ignored its abort signal and still runs at the end of the invocation; recording the timeout, then ending the sandbox',
    );
  }
  try {
    // A handler still running is stopped only when its sandbox ends: after the rest of the batch, or at
    // Lambda's timeout at the latest. Its retry must not start before then, or it would run beside it.
    return await recordOutcome(ctx, claimed, outcome, stillRunning ? sandboxEnd + 1_000 : 0);
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    logger.warn(
      'lease lost before the result was written; the reaper or a redelivery took this attempt over',
    );
    return 'done';
  }
}

/** Writes how the run ended; `retry_later` keeps the message when the run is left to its lease's expiry. */
async function recordOutcome(
  ctx: WorkerContext,
  claimed: ClaimedJob,
  outcome: HandlerOutcome,
  retryNotBefore: number,
): Promise<MessageOutcome> {
  const { deps } = ctx;
  const { job, attempt, definition, logger, owner } = claimed;
  const finishedAt = deps.clock.now();
  // After a `retry_job`, the policy counts this job's attempts from there (`attemptBase`).
  const counted = attempt - (job.attemptBase ?? 0);
  const retry = !outcome.ok && outcome.retryable && counted < definition.retry.maxAttempts;
  if (!outcome.ok && retry) {
    const retryAt = Math.max(
      finishedAt + retryDelayMs(definition.retry, counted, deps.random),
      retryNotBefore,
    );
    // The store parks retries beyond the queue's longest delay in the due index; the tick sends them.
    const parked = parksBeyondQueueDelay(retryAt, finishedAt);
    if (!parked) {
      // Sent before the job is marked `retrying`: a crash in between leaves a running job with an
      // expired lease, which the reaper retries; never a `retrying` job without a message.
      const { failed } = await deps.queue.send([retryMessage(job, attempt + 1, retryAt, finishedAt)]);
      if (failed.length > 0) {
        // The message stays: after the lease it takes the run over (or the reaper does, for a slot holder).
        logger.error('could not send the retry; the job is retried when its lease expires');
        return 'retry_later';
      }
    }
    // Should this fail, the job stays running under its lease and its next attempt still comes once:
    // from the retry message, from this message (kept: it takes the run over after the lease) or from
    // the reaper (a slot holder); the first to claim attempt n+1 runs it, the others are duplicates.
    await writeWithRetries(ctx, claimed.leaseUntil, () =>
      deps.jobStore.retryJob({
        jobId: job.id,
        owner,
        failedAttempt: attempt,
        error: outcome.error,
        retryAt,
        now: finishedAt,
      }),
    );
    ctx.counters.retried += 1;
    const event = eventOf(claimed, 'job.retrying', finishedAt);
    ctx.events.add(definition.events, { ...event, result: attemptResult(claimed, outcome, finishedAt) });
    logger.warn('attempt failed; retrying', {
      errorType: outcome.error.type,
      retryAt: new Date(retryAt).toISOString(),
    });
    return 'done';
  }
  const result = await storeFinalResult(ctx, {
    jobId: job.id,
    owner,
    leaseUntil: claimed.leaseUntil,
    result: attemptResult(claimed, outcome, finishedAt),
    expiresAt: finishedAt + resultTtlSecondsOf(definition, deps.config.defaultResultTtlSeconds) * 1000,
    logger,
  });
  if (!result) return 'done';
  if (result.outcome === 'success') {
    ctx.counters.succeeded += 1;
    ctx.events.add(definition.events, { ...eventOf(claimed, 'job.succeeded', finishedAt), result });
    logger.info('job succeeded', { durationMs: finishedAt - claimed.startedAt });
  } else {
    ctx.counters.failed += 1;
    ctx.events.add(definition.events, { ...eventOf(claimed, 'job.failed', finishedAt), result });
    ctx.failures.add(job, result);
    logger.warn('job failed', { errorType: result.error?.type });
  }
  return 'done';
}

function attemptResult(claimed: ClaimedJob, outcome: HandlerOutcome, finishedAt: EpochMs): JobResult {
  return {
    outcome: outcome.ok ? 'success' : 'error',
    ...(outcome.ok
      ? outcome.value === undefined
        ? {}
        : { returnValue: outcome.value }
      : { error: outcome.error }),
    startedAt: claimed.startedAt,
    finishedAt,
    attempt: claimed.attempt,
  };
}

function eventOf(claimed: ClaimedJob, type: JobEvent['type'], at: EpochMs): JobEvent {
  return {
    type,
    jobId: claimed.job.id,
    task: claimed.job.task,
    scheduleId: claimed.job.scheduleId,
    attempt: claimed.attempt,
    at,
  };
}
