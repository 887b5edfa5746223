import type { EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { Schedule } from '../../core/model/schedule';
import type {
  AcquireDueSchedulesInput,
  ReleaseOutcome,
  ReleaseScheduleInput,
} from '../../core/ports/schedule-store';
import { type DueHit, leaseDueItems } from './due-index';
import { Expressions } from './expressions';
import { itemToSchedule, optionalNumber } from './schedule-items';
import { setDueKeys } from './schedule-writes';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { type ItemKey, scheduleKey, shardKeys } from './table-design';

export function acquireDueSchedules(
  context: StoreContext,
  input: AcquireDueSchedulesInput,
): Promise<Schedule[]> {
  return leaseDueItems(context, {
    operation: 'acquireDueSchedules',
    shardKey: shardKeys.dueSchedule,
    now: input.now,
    dueBefore: input.dueBefore,
    limit: input.limit,
    lease: (hit) => leaseSchedule(context, input, hit),
  });
}

/** Leases one due schedule: still active, still due at the time the query saw, and no live lease. */
function leaseSchedule(
  context: StoreContext,
  input: AcquireDueSchedulesInput,
  hit: DueHit,
): Promise<Schedule | undefined> {
  return takeLease(context, 'acquireDueSchedules', hit.key, input.owner, input.now, input.leaseMs, hit.dueAt);
}

/** Leases one schedule by id when it is active and has no live lease (the admin API's immediate dispatch). */
export function leaseScheduleById(
  context: StoreContext,
  id: string,
  owner: string,
  now: EpochMs,
  leaseMs: number,
): Promise<Schedule | undefined> {
  return takeLease(context, 'leaseSchedule', scheduleKey(id), owner, now, leaseMs);
}

async function takeLease(
  context: StoreContext,
  operation: string,
  key: ItemKey,
  owner: string,
  now: EpochMs,
  leaseMs: number,
  seenDueAt?: EpochMs,
): Promise<Schedule | undefined> {
  const leaseUntil = now + leaseMs;
  const update = new Expressions().set('leaseOwner', owner).set('leaseUntil', leaseUntil);
  const lease = update.name('leaseUntil');
  let condition =
    `attribute_exists(${update.name('dueShard')})` +
    ` AND (attribute_not_exists(${lease}) OR ${lease} < ${update.value(now)})`;
  if (seenDueAt !== undefined) condition += ` AND ${update.name('dueAt')} = ${update.value(seenDueAt)}`;
  try {
    const output = await context.update(operation, {
      Key: key,
      ...update.build(condition),
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return itemToSchedule(output.Attributes ?? {});
  } catch (error) {
    const { old } = conditionFailure(error);
    const ourEarlierTry = old?.leaseOwner === owner && old.leaseUntil === leaseUntil;
    return ourEarlierTry && old ? itemToSchedule(old) : undefined;
  }
}

/** Adds the fires a plan dispatched to the schedule's `runs`, in the write that moves it past them. */
export function addRuns(update: Expressions, firesDispatched: number): void {
  if (firesDispatched <= 0) return;
  update.setExpression(
    'runs',
    `if_not_exists(${update.name('runs')}, ${update.value(0)}) + ${update.value(firesDispatched)}`,
  );
}

/**
 * Writes the next and last fire times and clears the lease, conditional on holding the lease and on the
 * version seen at lease time. A changed version clears only the lease (`superseded`).
 */
export async function releaseSchedule(
  context: StoreContext,
  input: ReleaseScheduleInput,
): Promise<ReleaseOutcome> {
  const update = new Expressions().remove('leaseOwner', 'leaseUntil');
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  addRuns(update, input.firesDispatched);
  // The version is unchanged, so the schedule is still not paused (pausing bumps the version).
  setDueKeys(update, input.id, false, input.nextFireAt, context.shards);
  const condition =
    `${update.name('leaseOwner')} = ${update.value(input.owner)}` +
    ` AND ${update.name('version')} = ${update.value(input.leasedVersion)}`;
  try {
    await context.update('releaseSchedule', {
      Key: scheduleKey(input.id),
      ...update.build(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return 'released';
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old) return 'gone';
    if (old.leaseOwner === input.owner) return releaseChanged(context, input, old);
    // Only the owner clears a lease (others take it over): no lease left means our earlier try applied.
    const ourEarlierTry = old.leaseOwner === undefined && optionalNumber(old.dueAt) === input.nextFireAt;
    if (ourEarlierTry) return old.version === input.leasedVersion ? 'released' : 'superseded';
    throw new LeaseLostError('schedule', input.id, input.owner);
  }
}

/**
 * The owner changed the schedule while it was leased (`ReleaseOutcome`): with its fire times unchanged,
 * the fires sent are counted and the last fire time moves, and the next fire time too while it and
 * `maxRuns` are as leased; otherwise only the lease is cleared. Conditional on the state just read.
 */
async function releaseChanged(
  context: StoreContext,
  input: ReleaseScheduleInput,
  old: StoredItem,
): Promise<ReleaseOutcome> {
  const firesFrom = optionalNumber(old.firesFrom) ?? Number(old.createdAt);
  if (firesFrom !== input.leased.firesFrom) return clearLeaseOnly(context, input);
  const update = new Expressions().remove('leaseOwner', 'leaseUntil');
  if (input.lastFireAt !== null) update.set('lastFireAt', input.lastFireAt);
  addRuns(update, input.firesDispatched);
  const moves =
    optionalNumber(old.dueAt) === input.leased.nextFireAt &&
    (optionalNumber(old.maxRuns) ?? null) === input.leased.maxRuns &&
    old.dueShard !== undefined;
  if (moves) setDueKeys(update, input.id, false, input.nextFireAt, context.shards);
  const condition =
    `${update.name('leaseOwner')} = ${update.value(input.owner)}` +
    ` AND ${update.name('version')} = ${update.value(old.version)}`;
  const outcome: ReleaseOutcome = moves ? 'released_changed' : 'superseded';
  try {
    await context.update('releaseSchedule', {
      Key: scheduleKey(input.id),
      ...update.build(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return outcome;
  } catch (error) {
    const { old: current } = conditionFailure(error);
    if (!current) return 'gone';
    // Our earlier try applied (its answer was lost): nobody else clears our lease
    if (current.leaseOwner === undefined) return outcome;
    // Changed once more in between: only the lease is cleared, as for any other change.
    if (current.leaseOwner === input.owner) return clearLeaseOnly(context, input);
    throw new LeaseLostError('schedule', input.id, input.owner);
  }
}

async function clearLeaseOnly(context: StoreContext, input: ReleaseScheduleInput): Promise<ReleaseOutcome> {
  const update = new Expressions().remove('leaseOwner', 'leaseUntil');
  const condition = `${update.name('leaseOwner')} = ${update.value(input.owner)}`;
  try {
    await context.update('releaseSchedule', {
      Key: scheduleKey(input.id),
      ...update.build(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return 'superseded';
  } catch (error) {
    const { old } = conditionFailure(error);
    if (!old) return 'gone';
    if (old.leaseOwner === undefined) return 'superseded';
    throw new LeaseLostError('schedule', input.id, input.owner);
  }
}
