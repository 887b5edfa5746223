import { wireJob } from '../../../core/admin-contract';
import { retryJobParams } from '../../../core/admin-contract/job-recovery';
import { JobNotFoundError } from '../../../core/errors';
import { parkedJobMessage } from '../../../core/model/job-messages';
import { PARKED_JOB_LEASE_MS } from '../../../core/ports/job-queue';
import type { ActionHandler } from '../context';
import { JobNotRetryableError } from '../errors';
import { InputCheck } from '../validation/input-check';

/**
 * `retry_job`: a new attempt of a job that ended in error, missed_start_deadline or abandoned, keeping
 * its earlier outcomes in `history`. The store parks it due now under this call's lease, so when the
 * send below fails the tick sends it once the lease ends; either way the claim runs it once. Answers the
 * job as the retry left it (a worker may have claimed it since).
 */
export const retryJob: ActionHandler<'retry_job'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const jobId = check.valid({ params: check.params(retryJobParams, raw) }).params.job_id;
  const { jobStore, queue, logger } = context.deps;
  const owner = `admin-${context.newId()}`;
  const outcome = await jobStore.retryEndedJob({
    jobId,
    now: context.now,
    owner,
    leaseUntil: context.now + PARKED_JOB_LEASE_MS,
  });
  if (!outcome) throw new JobNotFoundError(jobId);
  if (outcome.status === 'not_retryable') throw new JobNotRetryableError(jobId, outcome.job.status);

  try {
    const { failed } = await queue.send([parkedJobMessage(outcome.job, context.now)]);
    if (failed.length === 0) await jobStore.markJobSent(jobId, owner);
  } catch (error) {
    logger.warn('retried job not sent now; the tick sends it when its lease ends', { jobId, error });
  }
  return { job: wireJob(outcome.job) };
};
