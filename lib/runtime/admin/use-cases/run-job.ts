import { wireJobResult } from '../../../core/admin-contract';
import { runJobParams } from '../../../core/admin-contract/jobs';
import { LIMITS } from '../../../core/limits';
import { isFinalStatus } from '../../../core/model/job';
import type { ActionHandler } from '../context';
import { enqueueJobs } from './enqueue';
import { checkedJobRequest } from './jobs';
import { waitForResult } from './result-wait';

/**
 * `run_job` (APScheduler's `run_job`): `add_job`, then a wait of up to `wait_seconds` (default: the
 * longest allowed) for its result. Answers the result as `get_job_result` does once the job finished;
 * when the wait ran out, its current status with `result: null` (ask `get_job_result` again).
 */
export const runJob: ActionHandler<'run_job'> = async (raw, context) => {
  const request = checkedJobRequest(raw, context, '', runJobParams);
  const waitSeconds = runJobParams.shape.wait_seconds.parse(raw.wait_seconds) ?? LIMITS.maxResultWaitSeconds;
  const [outcome] = await enqueueJobs(context, [request]);
  if (!outcome?.ok) throw outcome?.error;
  const job = (await waitForResult(context, outcome.job, waitSeconds * 1000)) ?? outcome.job;
  return {
    job_id: job.id,
    status: job.status,
    result: job.result === null || !isFinalStatus(job.status) ? null : wireJobResult(job.result),
  };
};
