import { randomUUID } from 'node:crypto';
import type { EpochMs } from '../../core/clock';
import { ConflictingIdError, LeaseLostError } from '../../core/errors';
import type { Job } from '../../core/model/job';
import type { CreateJobInput } from '../../core/ports/job-store';
import { type DueHit, leaseDueItems } from './due-index';
import { Expressions } from './expressions';
import { sameItem } from './item-equality';
import { isExpired, itemToJob, newJobItem, updateJobWhile } from './job-items';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { jobKey, RESULT_EXPIRY_ATTRIBUTE, shardKeys, shardOf, TTL_ATTRIBUTE } from './table-design';

/**
 * Records a job accepted by the admin API (status `queued`), parked in the due index when it waits
 * longer than the queue can delay it, else entered there at `resendIfUnclaimedAt` (if given). An id
 * whose result expired counts as free (a schedule fire's only once its dedupe record ended, see
 * `JobStore.createJob`). `replace` overwrites anything but a running job (a running job cannot be
 * replaced: `ConflictingIdError`).
 */
export async function createJob(
  context: StoreContext,
  input: CreateJobInput,
): Promise<{ status: 'added' | 'replaced' | 'kept'; job: Job }> {
  // Unique per call, so that only our own earlier try (a retried put) counts as "already written": an
  // identical job added by another call in the same millisecond is a conflict.
  const item: StoredItem = { ...newJobItem(input.job, input.now), createToken: randomUUID() };
  const dueAt = input.parkUntilDue ? input.job.runAt : input.resendIfUnclaimedAt;
  if (dueAt !== undefined) {
    item.dueShard = shardKeys.dueJob(shardOf(input.job.id, context.shards));
    item.dueAt = dueAt;
  }
  const job = itemToJob(item);
  const expressions = new Expressions();
  // Reads take an expiry (whole seconds) as passed once `expiry * 1000 <= now`: the same test, in seconds.
  const now = expressions.value(Math.floor(input.now / 1000));
  // An ended job's result expires before its dedupe record: only a schedule fire's id stays taken until the record ends.
  const free =
    `attribute_not_exists(pk) OR ${expressions.name(TTL_ATTRIBUTE)} <= ${now}` +
    ` OR (${expressions.name(RESULT_EXPIRY_ATTRIBUTE)} <= ${now} AND NOT ${expressions.name('origin')} = ${expressions.value('schedule')})`;
  const condition =
    input.conflictPolicy === 'replace'
      ? `${free} OR ${expressions.name('status')} <> ${expressions.value('running')}`
      : free;
  try {
    const output = await context.put('createJob', {
      Item: item,
      ...expressions.build(condition),
      ReturnValues: 'ALL_OLD',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    const replaced = output.Attributes !== undefined && !isExpired(output.Attributes, input.now);
    return { status: replaced ? 'replaced' : 'added', job };
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old) return { status: 'added', job };
    if (sameItem(old, item)) return { status: 'added', job }; // our own earlier try succeeded
    if (input.conflictPolicy === 'do_nothing') return { status: 'kept', job: itemToJob(old) };
    throw new ConflictingIdError('job', input.job.id);
  }
}

/**
 * Parks a job at its own `runAt` after a send that failed or may have failed, conditional on nobody
 * having claimed it (`queued`, attempt 0): a claimed job's message did go out, and overwriting it would
 * run it again.
 */
export async function parkUnclaimedJob(context: StoreContext, jobId: string): Promise<Job | undefined> {
  const update = new Expressions().set('dueShard', shardKeys.dueJob(shardOf(jobId, context.shards)));
  update.setExpression('dueAt', update.name('runAt'));
  const condition =
    `attribute_exists(${update.name('pk')}) AND ${update.name('status')} = ${update.value('queued')}` +
    ` AND ${update.name('attempt')} = ${update.value(0)}`;
  return updateJobWhile(context, 'parkUnclaimedJob', jobId, update, condition);
}

/** Leases parked jobs that are due, so that exactly one tick sends each. */
export function acquireDueJobs(
  context: StoreContext,
  owner: string,
  now: EpochMs,
  dueBefore: EpochMs,
  leaseMs: number,
  limit: number,
): Promise<Job[]> {
  return leaseDueItems(context, {
    operation: 'acquireDueJobs',
    shardKey: shardKeys.dueJob,
    now,
    dueBefore,
    isCandidate: (item) => item.status === 'queued' || item.status === 'retrying',
    limit,
    lease: (hit) => leaseParkedJob(context, hit, owner, now, now + leaseMs),
  });
}

async function leaseParkedJob(
  context: StoreContext,
  hit: DueHit,
  owner: string,
  now: EpochMs,
  leaseUntil: EpochMs,
): Promise<Job | undefined> {
  const update = new Expressions().set('leaseOwner', owner).set('leaseUntil', leaseUntil);
  const lease = update.name('leaseUntil');
  const status = update.name('status');
  const condition =
    `attribute_exists(${update.name('dueShard')}) AND ${update.name('dueAt')} = ${update.value(hit.dueAt)}` +
    ` AND (attribute_not_exists(${lease}) OR ${lease} < ${update.value(now)})` +
    ` AND (${status} = ${update.value('queued')} OR ${status} = ${update.value('retrying')})`;
  try {
    const output = await context.update('acquireDueJobs', {
      Key: hit.key,
      ...update.build(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToJob(output.Attributes ?? {});
  } catch (error) {
    const { old } = conditionFailure(error);
    const ourEarlierTry = old?.leaseOwner === owner && old.leaseUntil === leaseUntil;
    return ourEarlierTry && old ? itemToJob(old) : undefined;
  }
}

/**
 * Takes a parked job out of the due index once its message is sent. Already out (claimed meanwhile,
 * cancelled, or our own earlier try) is fine; a parked job leased by someone else throws `LeaseLostError`.
 */
export async function markJobSent(context: StoreContext, jobId: string, owner: string): Promise<void> {
  const update = new Expressions().remove('dueShard', 'dueAt', 'leaseOwner', 'leaseUntil');
  const condition = `attribute_exists(${update.name('dueShard')}) AND ${update.name('leaseOwner')} = ${update.value(owner)}`;
  try {
    await context.update('markJobSent', {
      Key: jobKey(jobId),
      ...update.build(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  } catch (error) {
    const { old } = conditionFailure(error);
    if (old?.dueShard !== undefined) throw new LeaseLostError('job', jobId, owner);
  }
}
