import type { Delivery, UnrunEnding } from '../../core/delivery/delivery';
import { LeaseLostError } from '../../core/errors';
import type { JobEventType } from '../../core/ports/event-publisher';
import type { ClaimOutcome } from '../../core/ports/job-store';
import type { Logger } from '../observability/logger';
import type { EventsPolicy } from '../tasks/define-task';
import type { WorkerContext } from './worker-context';

/** A short lease: the job is finished right after it is claimed, without running anything. */
const NO_RUN_LEASE_MS = 60_000;

/** What the result of a job ended without running is kept for, and the events it publishes. */
export interface UnrunTerms {
  resultTtlSeconds: number;
  events: EventsPolicy;
  /** The tasks this worker knows (named when a job's task is not among them). */
  knownTasks: readonly string[];
}

/**
 * Records a result for a job that will not run (unknown task, no attempts left, start deadline missed).
 * The job is claimed first, without taking a slot, so a duplicate or cancelled delivery changes nothing:
 * the claim's refusal is returned for the delivery to decide on (a run found elsewhere may need taking
 * over). Undefined when the result was recorded (or the run's lease was lost meanwhile).
 */
export async function finishWithoutRunning(
  ctx: WorkerContext,
  delivery: Delivery,
  ending: UnrunEnding,
  terms: UnrunTerms,
  logger: Logger,
): Promise<Exclude<ClaimOutcome, { status: 'claimed' | 'no_slot' }> | undefined> {
  const { jobStore, clock } = ctx.deps;
  const { job, attempt } = delivery;
  const now = clock.now();
  const owner = `worker-${ctx.deps.newId()}`;
  const claim = await jobStore.claimJob({ job, attempt, owner, now, leaseUntil: now + NO_RUN_LEASE_MS });
  if (claim.status === 'duplicate' || claim.status === 'cancelled') return claim;
  if (claim.status !== 'claimed') throw new Error(`a claim without a slot answered ${claim.status}`);
  const error =
    ending.error?.type === 'UnknownTaskError'
      ? {
          ...ending.error,
          message: `${ending.error.message}; known tasks: ${terms.knownTasks.join(', ') || '(none)'}`,
        }
      : ending.error;
  const result = {
    outcome: ending.outcome,
    ...(error ? { error } : {}),
    startedAt: null,
    finishedAt: now,
    attempt,
  };
  try {
    await jobStore.finishJob({
      jobId: job.id,
      owner,
      result,
      expiresAt: now + terms.resultTtlSeconds * 1000,
    });
  } catch (caught) {
    if (!(caught instanceof LeaseLostError)) throw caught;
    return undefined;
  }
  if (ending.outcome === 'missed_start_deadline') ctx.counters.missed += 1;
  else ctx.counters.failed += 1;
  const eventType: JobEventType =
    ending.outcome === 'missed_start_deadline'
      ? 'job.missed'
      : ending.outcome === 'abandoned'
        ? 'job.abandoned'
        : 'job.failed';
  ctx.events.add(terms.events, {
    type: eventType,
    jobId: job.id,
    task: job.task,
    scheduleId: job.scheduleId,
    attempt,
    at: now,
    result,
  });
  ctx.failures.add(job, result);
  logger.warn('job finished without running', { outcome: ending.outcome, errorType: error?.type });
  return undefined;
}
