import type { Job } from '../../core/model/job';
import type { ClaimJobInput, ClaimOutcome } from '../../core/ports/job-store';
import { sameCopy, type WokenEntry } from '../../core/ports/waiting-line';
import { carriesCopy } from './entry-copies';
import { fireLogCovers } from './fire-log';
import { applyTo, change, Expressions, type ItemChange } from './item-change';
import { itemToJob, requestAttributes } from './job-items';
import { refusalOf, type StartGate, takeStartItem } from './start-gate';
import {
  conditionFailure,
  type StoreContext,
  type StoredItem,
  transactionCancellation,
} from './store-context';
import {
  CHECK_FAILED_ATTRIBUTE,
  CLAIMED_REVISION_ATTRIBUTE,
  jobKey,
  keptFireOf,
  LOGGED_RUN_AT_ATTRIBUTE,
  RESULT_EXPIRY_ATTRIBUTE,
  shardKeys,
  shardOf,
  TTL_ATTRIBUTE,
  wokenEntryKey,
} from './table-design';
import { wokenEntry } from './woken-entries';

/**
 * Claims one delivery of a job: creates the item or takes a `queued`/`retrying` one whose stored attempt
 * is lower, or a slot-less `running` one whose lease ended (its worker vanished; the redelivered message
 * takes over), or (for a schedule fire that checks its schedule) one cancelled by such a check. With a concurrency limit or a rate limit, the claim and the task's start (its slot, its
 * next start time) are taken in one transaction.
 * Only slot holders get running-index keys (the reaper returns their slots): an unlimited job costs one
 * write to claim and one to finish, plus its listing-index entries (a fire's job: none when its task's log
 * lists it, else `jobs-by-task`; ADR 0001).
 *
 * A check's cancellation is taken back only by a claim made for it, once the claim as usual found it: so
 * the outcome knows it reclaimed (`reclaimed`), at the cost of one failed write per reclaim (only after a
 * schedule change), and none on the path of every other claim. Should another delivery reclaim and cancel
 * the job again in between, the claim finds that cancellation and tries again.
 *
 * A woken delivery (`woken`, ADR 0009) takes its woken entry out in the same transaction, and with it
 * the slot the entry was handed, instead of a free one (a rate limit's gate still applies).
 */
export async function claimJob(context: StoreContext, input: ClaimJobInput): Promise<ClaimOutcome> {
  const woken = await wokenEntryOf(context, input);
  let outcome = await claimAs(context, input, 'fresh', woken);
  while (outcome === 'reclaimable') outcome = await claimAs(context, input, 'reclaim', woken);
  // The entry went meanwhile (another delivery of the job took it, it was given back, or a later copy
  // of the job settled into it): claim as any delivery.
  if (outcome === 'woken_gone') return claimJob(context, { ...input, woken: undefined });
  return outcome;
}

/** The woken entry the claim takes, while it carries the claim's copy of the job. */
async function wokenEntryOf(context: StoreContext, input: ClaimJobInput): Promise<WokenEntry | undefined> {
  if (!input.woken) return undefined;
  const entry = await wokenEntry(context, input.job.task, input.woken.position);
  return entry && sameCopy(entry.message, input.woken.copy) ? entry : undefined;
}

/** `fresh`: the claim of a job not yet run or to run again; `reclaim`: of a check's cancellation. */
type ClaimKind = 'fresh' | 'reclaim';

/**
 * One claim write (or transaction); `reclaimable` when it found a check's cancellation it may take back,
 * `woken_gone` when the woken entry it would take was gone.
 */
async function claimAs(
  context: StoreContext,
  input: ClaimJobInput,
  kind: ClaimKind,
  woken: WokenEntry | undefined,
): Promise<ClaimOutcome | 'reclaimable' | 'woken_gone'> {
  const update = claimUpdate(context, input, kind);
  const tookWokenSlot = woken?.withSlot === true;
  const claimed = (item: StoredItem): ClaimOutcome => ({
    status: 'claimed',
    job: itemToJob(item),
    ...(kind === 'reclaim' && { reclaimed: true }),
    ...(tookWokenSlot && { tookWokenSlot: true }),
    ...(item.countedRun === true && { countedRun: true }),
  });
  if (woken) return claimWoken(context, input, update, woken, claimed);
  if (input.concurrencyLimit === undefined && input.rateLimit === undefined) {
    try {
      const output = await context.update('claimJob', {
        Key: jobKey(input.job.id),
        ...update,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return claimed(output.Attributes ?? {});
    } catch (error) {
      return lostClaim(input, conditionFailure(error).old, claimed);
    }
  }
  const gate: StartGate = {
    now: input.now,
    ...(input.concurrencyLimit !== undefined && { limit: input.concurrencyLimit }),
    ...(input.rateLimit && { rate: input.rateLimit }),
  };
  try {
    await context.transact('claimJob', {
      TransactItems: [
        {
          Update: {
            TableName: context.tableName,
            Key: jobKey(input.job.id),
            ...update,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        takeStartItem(context, input.job.task, gate),
      ],
    });
  } catch (error) {
    const [claimReason, slotReason] = transactionCancellation(error);
    if (claimReason?.code === 'ConditionalCheckFailed') return lostClaim(input, claimReason.old, claimed);
    return refusalOf(gate, slotReason?.old);
  }
  const output = await context.get('claimJob', { Key: jobKey(input.job.id), ConsistentRead: true });
  return claimed(output.Item ?? {});
}

/**
 * The claim of a woken delivery: the job, its woken entry out, and the task's counter: the handed slot
 * kept (given back when the task no longer has a limit), or a free slot taken for an entry woken
 * without one; a rate limit's next start either way.
 */
async function claimWoken(
  context: StoreContext,
  input: ClaimJobInput,
  update: ReturnType<typeof claimUpdate>,
  woken: WokenEntry,
  claimed: (item: StoredItem) => ClaimOutcome,
): Promise<ClaimOutcome | 'reclaimable' | 'woken_gone'> {
  const entry = new Expressions();
  const withSlot = entry.name('withSlot');
  const items: Record<string, unknown>[] = [
    {
      Update: {
        TableName: context.tableName,
        Key: jobKey(input.job.id),
        ...update,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Delete: {
        TableName: context.tableName,
        Key: wokenEntryKey(input.job.task, woken.position),
        ...entry.build(
          `${woken.withSlot ? `attribute_exists(${withSlot})` : `attribute_not_exists(${withSlot})`}` +
            ` AND ${carriesCopy(entry, woken.message)}`,
        ),
      },
    },
  ];
  const gate: StartGate = {
    now: input.now,
    ...(input.concurrencyLimit !== undefined && !woken.withSlot && { limit: input.concurrencyLimit }),
    ...(input.rateLimit && { rate: input.rateLimit }),
    ...(woken.withSlot && input.concurrencyLimit === undefined && { returnSlot: true }),
  };
  if (gate.limit !== undefined || gate.rate || gate.returnSlot) {
    items.push(takeStartItem(context, input.job.task, gate));
  }
  try {
    await context.transact('claimJob', { TransactItems: items });
  } catch (error) {
    const [claimReason, entryReason, slotReason] = transactionCancellation(error);
    if (claimReason?.code === 'ConditionalCheckFailed') return lostClaim(input, claimReason.old, claimed);
    if (entryReason?.code === 'ConditionalCheckFailed') return 'woken_gone';
    // A slot to give back on a counter already at 0 (it drifted): claim as any delivery; the entry goes later.
    if (gate.returnSlot && Number(slotReason?.old?.running ?? 0) <= 0) return 'woken_gone';
    const refusal = refusalOf(gate, slotReason?.old);
    return refusal.nextStartAt !== undefined && woken.withSlot ? { ...refusal, wokenSlot: true } : refusal;
  }
  const output = await context.get('claimJob', { Key: jobKey(input.job.id), ConsistentRead: true });
  return claimed(output.Item ?? {});
}

function claimUpdate(context: StoreContext, input: ClaimJobInput, kind: ClaimKind) {
  const { job, now } = input;
  const { runAt, ...request } = requestAttributes(job);
  const claim: ItemChange = change(
    {
      ...request,
      attempt: input.attempt,
      status: 'running',
      leaseOwner: input.owner,
      leaseUntil: input.leaseUntil,
      // Only slot holders are indexed for reaping; a run without a slot is taken over on redelivery.
      runShard:
        input.concurrencyLimit === undefined ? null : shardKeys.running(shardOf(job.id, context.shards)),
      startedAt: input.check?.startedAt ?? now,
      holdsSlot: input.concurrencyLimit === undefined ? null : true,
      // Only a check that failed is kept: its run never starts under this claim
      [CHECK_FAILED_ATTRIBUTE]: input.check?.failed ? true : null,
    },
    // The expiries and `reclaimable` exist only on a reclaimed cancellation (see the condition below).
    [
      'finishedAt',
      'returnValue',
      'error',
      TTL_ATTRIBUTE,
      RESULT_EXPIRY_ATTRIBUTE,
      'dueShard',
      'dueAt',
      'reclaimable',
      'unsuccessful',
    ],
  );
  const expressions = applyTo(new Expressions(), claim);
  // A job's run time never changes on claim (an index key: rewriting costs). A fire noted in its task's
  // log keeps its run time out of `jobs-by-task` (ADR 0001).
  const runAtAttribute = runAtAttributeOnClaim(input);
  expressions.setExpression(
    runAtAttribute,
    `if_not_exists(${expressions.name(runAtAttribute)}, ${expressions.value(runAt)})`,
  );
  expressions.setExpression(
    'createdAt',
    `if_not_exists(${expressions.name('createdAt')}, ${expressions.value(now)})`,
  );
  if (input.check) {
    const { createdAt, version, firesFrom } = input.check.revision;
    expressions.setExpression(
      CLAIMED_REVISION_ATTRIBUTE,
      expressions.value({ createdAt, version, ...(firesFrom !== undefined && { firesFrom }) }),
    );
  }
  const status = expressions.name('status');
  // A fire cancelled because its schedule changed is claimed again by a delivery that re-checks it.
  if (kind === 'reclaim') {
    return expressions.buildUpdate(
      `${status} = ${expressions.value('cancelled')} AND attribute_exists(${expressions.name('reclaimable')})` +
        ` AND ${expressions.name('attempt')} <= ${expressions.value(input.attempt)}`,
    );
  }
  const abandonedRun =
    `(${status} = ${expressions.value('running')} AND attribute_not_exists(${expressions.name('holdsSlot')})` +
    ` AND ${expressions.name('leaseUntil')} < ${expressions.value(now)})`;
  // A message sent for an earlier creation of the id (replaced since) does not claim the new one
  const token = input.job.createToken;
  let queued = `${status} = ${expressions.value('queued')}`;
  if (token !== undefined) {
    const createToken = expressions.name('createToken');
    queued = `(${queued} AND (attribute_not_exists(${createToken}) OR ${createToken} = ${expressions.value(token)}))`;
  }
  return expressions.buildUpdate(
    `attribute_not_exists(pk) OR ((${queued} OR ${status} = ${expressions.value('retrying')} OR ${abandonedRun})` +
      ` AND ${expressions.name('attempt')} < ${expressions.value(input.attempt)})`,
  );
}

/**
 * Where a claim writes the job's run time (if absent): `runAt`, the `jobs-by-task` sort key, for any job
 * but a fire listed by its task's log for the whole run (noted there before its send, or a later attempt
 * of a fire whose first claim chose already); `loggedRunAt`, outside every index, for such a fire.
 */
function runAtAttributeOnClaim(input: ClaimJobInput): string {
  const fire = keptFireOf(input.job.id);
  if (!fire || !fireLogCovers(fire.fireTime, input.leaseUntil)) return 'runAt';
  return input.attempt > 1 || input.taskLogged === true ? LOGGED_RUN_AT_ATTRIBUTE : 'runAt';
}

/**
 * Why a claim's condition failed: our own earlier try (claimed), a check's cancellation this claim may
 * take back (`reclaimable`), another cancellation, or another delivery.
 */
function lostClaim(
  input: ClaimJobInput,
  old: StoredItem | undefined,
  claimed: (item: StoredItem) => ClaimOutcome,
): ClaimOutcome | 'reclaimable' {
  if (!old) return { status: 'duplicate' };
  const job: Job = itemToJob(old);
  const ourEarlierTry =
    job.status === 'running' &&
    job.leaseOwner === input.owner &&
    job.attempt === input.attempt &&
    job.leaseUntil === input.leaseUntil;
  if (ourEarlierTry) return claimed(old);
  if (job.status !== 'cancelled') return { status: 'duplicate', job };
  const reclaimable = input.reclaimCancelledFire === true && old.reclaimable === true;
  if (reclaimable && job.attempt <= input.attempt) return 'reclaimable';
  return { status: 'cancelled', job, ...(reclaimable && { reclaimAsAttempt: job.attempt }) };
}
