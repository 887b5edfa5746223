import type { EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { Job } from '../../core/model/job';
import { parksBeyondQueueDelay } from '../../core/ports/job-queue';
import {
  type FinishJobInput,
  isUnsuccessfulOutcome,
  type JobRequest,
  type RetryJobInput,
  type RunEnd,
} from '../../core/ports/job-store';
import { type HeldSlot, wakeTime } from '../../core/ports/waiting-line';
import { fireLogCovers } from './fire-log';
import { applyTo, change, changedItem, Expressions, type ItemChange } from './item-change';
import { endedRecordExpiry, itemToJob, requestAttributes, retryRunAtAttribute } from './job-items';
import { type CounterRead, readCounter, slotBack } from './slot-back';
import {
  conditionFailure,
  type StoreContext,
  type StoredItem,
  transactionCancellation,
} from './store-context';
import { jobKey, keptFireOf, shardKeys, shardOf } from './table-design';

const LEASE_ATTRIBUTES = ['leaseOwner', 'leaseUntil', 'runShard', 'holdsSlot'];

/**
 * Records the final result, clears the lease and hands the slot on or returns it (in one transaction
 * when one is held).
 */
export function finishJob(context: StoreContext, input: FinishJobInput): Promise<RunEnd> {
  const { result } = input;
  const ending = change(
    {
      status: result.outcome,
      startedAt: result.startedAt,
      finishedAt: result.finishedAt,
      returnValue: result.returnValue,
      error: result.error,
      ...endedRecordExpiry(result.finishedAt, input.expiresAt),
      reclaimable: input.reclaimable === true ? true : undefined,
      unsuccessful: isUnsuccessfulOutcome(result.outcome) ? result.outcome : null,
    },
    [
      ...LEASE_ATTRIBUTES,
      ...(result.returnValue === undefined ? ['returnValue'] : []),
      ...(result.error ? [] : ['error']),
    ],
  );
  // A handler may return null: kept as a value, not read as "absent".
  if (result.returnValue !== undefined) {
    ending.set.returnValue = result.returnValue;
    ending.remove = ending.remove.filter((attribute) => attribute !== 'returnValue');
  }
  const fire = keptFireOf(input.jobId);
  // A result that outlives the fire's log entry is listed by `jobs-by-task` instead (ADR 0001).
  if (fire && !fireLogCovers(fire.fireTime, input.expiresAt)) ending.keep = { runAt: fire.fireTime };
  const ourEarlierTry = (old: StoredItem) =>
    old.status === result.outcome && old.finishedAt === result.finishedAt && old.leaseOwner === undefined;
  return endRun(context, 'finishJob', { ...input, now: result.finishedAt }, ending, ourEarlierTry);
}

/**
 * Records a failed attempt (status `retrying`, the error kept as the job's latest result), clears the lease
 * and hands the slot on or returns it. A retry further away than the queue can delay is parked in the due index.
 */
export function retryJob(context: StoreContext, input: RetryJobInput): Promise<RunEnd> {
  const parked = parksBeyondQueueDelay(input.retryAt, input.now);
  const shard = shardOf(input.jobId, context.shards);
  const ending = change(
    {
      status: 'retrying',
      [retryRunAtAttribute(input.jobId)]: input.retryAt,
      finishedAt: input.now,
      error: input.error,
      dueShard: parked ? shardKeys.dueJob(shard) : null,
      dueAt: parked ? input.retryAt : null,
    },
    [...LEASE_ATTRIBUTES, 'returnValue', ...(input.error ? [] : ['error'])],
  );
  const ourEarlierTry = (old: StoredItem) =>
    old.status === 'retrying' && old.attempt === input.failedAttempt && old.finishedAt === input.now;
  return endRun(context, 'retryJob', input, ending, ourEarlierTry, input.failedAttempt);
}

/**
 * Applies `ending` to a running job leased by `owner` (also after its lease expired, as long as nobody
 * took it over). Without `heldSlot`, tries the common case first (no slot held: one write). A slot
 * holder is ended in the transaction that hands its slot to the line's head or gives it back
 * (`slotBack`); with `heldSlot`, the job and the task's counter are read side by side for it (the
 * run said it holds a slot; when the job says otherwise, the one write goes after all).
 */
async function endRun(
  context: StoreContext,
  operation: string,
  run: { jobId: string; owner: string; now: EpochMs; heldSlot?: HeldSlot },
  ending: ItemChange,
  ourEarlierTry: (old: StoredItem) => boolean,
  attempt?: number,
): Promise<RunEnd> {
  const { jobId, owner } = run;
  const build = (withoutSlot: boolean) => {
    const expressions = applyTo(new Expressions(), ending);
    let condition =
      `${expressions.name('leaseOwner')} = ${expressions.value(owner)}` +
      ` AND ${expressions.name('status')} = ${expressions.value('running')}`;
    if (attempt !== undefined)
      condition += ` AND ${expressions.name('attempt')} = ${expressions.value(attempt)}`;
    if (withoutSlot) condition += ` AND attribute_not_exists(${expressions.name('holdsSlot')})`;
    return expressions.buildUpdate(condition);
  };
  let old: StoredItem | undefined;
  let counterRead: CounterRead | undefined;
  if (run.heldSlot !== undefined) {
    const [job, counter] = await Promise.all([
      context.get(operation, { Key: jobKey(jobId), ConsistentRead: true }),
      readCounter(context, operation, run.heldSlot.task),
    ]);
    old = job.Item;
    counterRead = counter;
  }
  if (old?.holdsSlot !== true || old.task !== run.heldSlot?.task) {
    counterRead = undefined;
    try {
      const output = await context.update(operation, {
        Key: jobKey(jobId),
        ...build(true),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { job: itemToJob(output.Attributes ?? {}) };
    } catch (error) {
      old = conditionFailure(error).old;
    }
  }
  if (old && ourEarlierTry(old)) return { job: itemToJob(old) };
  const ownsRun =
    old?.leaseOwner === owner &&
    old.status === 'running' &&
    (attempt === undefined || old.attempt === attempt);
  if (!old || !ownsRun || old.holdsSlot !== true) throw new LeaseLostError('job', jobId, owner);
  const runItem = {
    Update: {
      TableName: context.tableName,
      Key: jobKey(jobId),
      ...build(false),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
  const ended = itemToJob(changedItem(old, ending));
  const task = String(old.task);
  let end: RunEnd | undefined;
  // Ends the run with the slot's items; the reasons when only their conditions failed.
  const woken = await slotBack(
    context,
    operation,
    task,
    wakeTime(run.now, run.heldSlot?.carriedOn),
    async (slotItems) => {
      try {
        await context.transact(operation, { TransactItems: [runItem, ...slotItems] });
        end = { job: ended };
        return 'applied';
      } catch (error) {
        const [runReason, ...slotReasons] = transactionCancellation(error);
        if (runReason?.old && ourEarlierTry(runReason.old)) {
          end = { job: itemToJob(runReason.old) };
          return 'applied';
        }
        const slotFailed = slotReasons.some((reason) => reason.code === 'ConditionalCheckFailed');
        if (runReason?.code !== 'ConditionalCheckFailed' && slotFailed) return slotReasons;
        throw new LeaseLostError('job', jobId, owner);
      }
    },
    counterRead,
  );
  if (!end) throw new LeaseLostError('job', jobId, owner);
  return end.job === ended && woken ? { job: ended, woken } : end;
}

/**
 * Writes status `cancelled` unless the job started: creates the item when the job exists only as a queue
 * message (`request`, when given, fills in what the job is). Returns undefined when it already started.
 */
export async function cancelJob(
  context: StoreContext,
  id: string,
  now: EpochMs,
  expiresAt: EpochMs,
  request?: JobRequest,
): Promise<Job | undefined> {
  const expressions = new Expressions();
  const keepOrSet = (attribute: string, value: unknown) => {
    if (value === null || value === undefined) return;
    expressions.setExpression(
      attribute,
      `if_not_exists(${expressions.name(attribute)}, ${expressions.value(value)})`,
    );
  };
  // A fire keeps its place in its task's listing (by fire time, as `finishJob` keeps it): never `now`.
  const fire = keptFireOf(id);
  const known = {
    ...(request && requestAttributes(request)),
    runAt: fire?.fireTime ?? request?.runAt ?? now,
  };
  for (const [attribute, value] of Object.entries(known)) keepOrSet(attribute, value);
  keepOrSet('createdAt', now);
  keepOrSet('attempt', 0);
  applyTo(
    expressions,
    change(
      {
        status: 'cancelled',
        finishedAt: now,
        unsuccessful: 'cancelled',
        ...endedRecordExpiry(now, expiresAt),
      },
      ['dueShard', 'dueAt', 'leaseOwner', 'leaseUntil', 'returnValue', 'error', 'reclaimable'],
    ),
  );
  const status = expressions.name('status');
  // A fire cancelled by a schedule check may still be claimed again: cancelling it makes that final.
  const condition =
    `attribute_not_exists(pk) OR ${status} = ${expressions.value('queued')}` +
    ` OR ${status} = ${expressions.value('retrying')} OR attribute_exists(${expressions.name('reclaimable')})`;
  try {
    const output = await context.update('cancelJob', {
      Key: jobKey(id),
      ...expressions.build(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToJob(output.Attributes ?? {});
  } catch (error) {
    const { old } = conditionFailure(error);
    return old?.status === 'cancelled' ? itemToJob(old) : undefined;
  }
}
