import { LeaseLostError } from '../../core/errors';
import type { Job, JobError, ResultOutcome } from '../../core/model/job';
import type { JobEventType } from '../../core/ports/event-publisher';
import type { JobRequest } from '../../core/ports/job-store';
import type { Logger } from '../observability/logger';
import type { EventsPolicy } from '../tasks/define-task';
import type { MessageOutcome, WorkerContext } from './worker-context';

/** A short lease: the job is finished right after it is claimed, without running anything. */
const NO_RUN_LEASE_MS = 60_000;

export interface NoRunEnding {
  outcome: Exclude<ResultOutcome, 'success'>;
  error?: JobError;
  resultTtlSeconds: number;
  events: EventsPolicy;
}

/**
 * Records a result for a job that will not run (unknown task, no attempts left, start deadline missed).
 * The job is claimed first, without taking a slot, so a duplicate or cancelled delivery changes nothing
 * (a job found running elsewhere is handed to `claimedElsewhere`: its run may need taking over).
 */
export async function finishWithoutRunning(
  ctx: WorkerContext,
  job: JobRequest,
  attempt: number,
  logger: Logger,
  ending: NoRunEnding,
  /** Another delivery has the job (a duplicate, or a run whose worker may have vanished): what to do. */
  claimedElsewhere: (stored: Job | undefined) => Promise<MessageOutcome>,
): Promise<MessageOutcome> {
  const { jobStore, clock } = ctx.deps;
  const now = clock.now();
  const owner = `worker-${ctx.deps.newId()}`;
  const claim = await jobStore.claimJob({ job, attempt, owner, now, leaseUntil: now + NO_RUN_LEASE_MS });
  if (claim.status === 'duplicate') return claimedElsewhere(claim.job);
  if (claim.status !== 'claimed') {
    ctx.counters.duplicates += 1;
    return 'done';
  }
  const result = {
    outcome: ending.outcome,
    ...(ending.error ? { error: ending.error } : {}),
    startedAt: null,
    finishedAt: now,
    attempt,
  };
  try {
    await jobStore.finishJob({
      jobId: job.id,
      owner,
      result,
      expiresAt: now + ending.resultTtlSeconds * 1000,
    });
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    return 'done';
  }
  if (ending.outcome === 'missed_start_deadline') ctx.counters.missed += 1;
  else ctx.counters.failed += 1;
  const eventType: JobEventType =
    ending.outcome === 'missed_start_deadline'
      ? 'job.missed'
      : ending.outcome === 'abandoned'
        ? 'job.abandoned'
        : 'job.failed';
  ctx.events.add(ending.events, {
    type: eventType,
    jobId: job.id,
    task: job.task,
    scheduleId: job.scheduleId,
    attempt,
    at: now,
    result,
  });
  ctx.failures.add(job, result);
  logger.warn('job finished without running', { outcome: ending.outcome, errorType: ending.error?.type });
  return 'done';
}
