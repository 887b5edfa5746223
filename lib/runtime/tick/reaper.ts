import type { Clock } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { Job } from '../../core/model/job';
import { retryMessage } from '../../core/model/job-messages';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import { sendWoken } from '../flow/woken';
import type { Logger } from '../observability/logger';

export interface ReaperDeps {
  jobStore: JobStore;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
}

export const LEASE_EXPIRED_ERROR_TYPE = 'LeaseExpiredError';

/**
 * Hands every job whose worker stopped answering (its lease expired) to a next attempt (`nextAttemptMessage`): the message for
 * attempt n+1 is sent first, then the job is set `retrying`, which hands its slot to the head of its
 * task's line in the same write (ADR 0009; that job's message is sent then) or gives it back.
 *
 * The tick bundles no task code, so it does not know the task's retry policy: the worker that receives
 * attempt n+1 finishes the job as `abandoned` when the task allows no further attempt. Sending before
 * writing means a crash in between loses nothing (the lease is still expired, the next tick does it
 * again, and the duplicate message is dropped at claim); a message that arrives before the write is
 * put back by the worker until the job is `retrying`.
 */
export async function reapExpiredJobLeases(
  deps: ReaperDeps,
  options: { limit: number },
): Promise<{ reaped: number; failed: number }> {
  const now = deps.clock.now();
  const expired = (await deps.jobStore.findExpiredJobLeases(now, options.limit)).filter(
    (job) => job.leaseOwner !== null,
  );
  if (expired.length === 0) return { reaped: 0, failed: 0 };
  const { failed } = await deps.queue.send(expired.map((job) => nextAttemptMessage(job, now)));
  const failedIds = new Set(failed);
  const outcomes = await Promise.all(
    expired.filter((job) => !failedIds.has(job.id)).map((job) => handOver(deps, job, now)),
  );
  const reaped = outcomes.filter((outcome) => outcome === 'reaped').length;
  return { reaped, failed: failedIds.size + outcomes.filter((outcome) => outcome === 'failed').length };
}

/**
 * Attempt n+1 of a job whose worker vanished: a retry of the run as stored, unless the fire check its
 * claim stored failed (ADR 0002). Its handler never started then, and the message carries the run's
 * revision, so its delivery checks the fire as a first start.
 */
function nextAttemptMessage(job: Job, now: number): JobMessage {
  const message = retryMessage(job, job.attempt + 1, now, now);
  return job.checkFailed && job.claimedRevision ? { ...message, revision: job.claimedRevision } : message;
}

async function handOver(deps: ReaperDeps, job: Job, now: number): Promise<'reaped' | 'gone' | 'failed'> {
  try {
    const end = await deps.jobStore.retryJob({
      jobId: job.id,
      owner: job.leaseOwner ?? '',
      failedAttempt: job.attempt,
      error: {
        type: LEASE_EXPIRED_ERROR_TYPE,
        message: `attempt ${job.attempt} stopped answering: its lease ended at ${new Date(job.leaseUntil ?? now).toISOString()} (worker crashed or timed out)`,
      },
      retryAt: now,
      now,
    });
    if (end.woken) await sendWoken(deps, [end.woken]);
    deps.logger.warn('reaped job with expired lease', {
      jobId: job.id,
      task: job.task,
      attempt: job.attempt,
    });
    return 'reaped';
  } catch (error) {
    // Finished or reaped meanwhile by someone else: nothing left to do.
    if (error instanceof LeaseLostError) return 'gone';
    deps.logger.error('reaping job failed; retried next tick', { jobId: job.id, error });
    return 'failed';
  }
}
