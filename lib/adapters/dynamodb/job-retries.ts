import { historyAfterRetry } from '../../core/model/job';
import {
  isRetryableOutcome,
  type RetryEndedJobInput,
  type RetryEndedJobOutcome,
} from '../../core/ports/job-store';
import { Expressions } from './expressions';
import { isExpired, itemToJob, retryRunAtAttribute } from './job-items';
import { conditionFailure, type StoreContext } from './store-context';
import { jobKey, RESULT_EXPIRY_ATTRIBUTE, shardKeys, shardOf, TTL_ATTRIBUTE } from './table-design';

/**
 * `retryEndedJob`: reads the job, then writes the new attempt conditioned on the status and finish time
 * it read, so of racing calls exactly one applies. The job waits in the due index at `now`, leased to the
 * caller, who sends its message; the index keys of an unsuccessful ending are removed.
 */
export async function retryEndedJob(
  context: StoreContext,
  input: RetryEndedJobInput,
): Promise<RetryEndedJobOutcome | undefined> {
  const key = jobKey(input.jobId);
  const read = await context.get('retryEndedJob', { Key: key, ConsistentRead: true });
  const item = read.Item;
  if (!item || isExpired(item, input.now)) return undefined;
  const job = itemToJob(item);
  if (!isRetryableOutcome(job.status)) return { status: 'not_retryable', job };

  const update = new Expressions()
    .set('status', 'retrying')
    .set(retryRunAtAttribute(input.jobId), input.now)
    .set('attemptBase', job.attempt)
    .set('history', historyAfterRetry(job))
    .set('dueShard', shardKeys.dueJob(shardOf(input.jobId, context.shards)))
    .set('dueAt', input.now)
    .set('leaseOwner', input.owner)
    .set('leaseUntil', input.leaseUntil)
    .remove(
      'startDeadline',
      'startedAt',
      'finishedAt',
      'returnValue',
      'error',
      'unsuccessful',
      'reclaimable',
      'runShard',
      'holdsSlot',
      'cancelRequestedAt',
      RESULT_EXPIRY_ATTRIBUTE,
      TTL_ATTRIBUTE,
    );
  const condition =
    `${update.name('status')} = ${update.value(job.status)}` +
    ` AND ${update.name('finishedAt')} = ${update.value(item.finishedAt)}`;
  try {
    const output = await context.update('retryEndedJob', {
      Key: key,
      ...update.build(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return { status: 'retried', job: itemToJob(output.Attributes ?? {}) };
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old || isExpired(old, input.now)) return undefined;
    const ours =
      old.status === 'retrying' && old.leaseOwner === input.owner && old.leaseUntil === input.leaseUntil;
    return { status: ours ? 'retried' : 'not_retryable', job: itemToJob(old) };
  }
}
