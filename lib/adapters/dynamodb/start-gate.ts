import type { EpochMs } from '../../core/clock';
import { nextStartAfter, type RateLimit } from '../../core/model/rate-limit';
import type { ClaimOutcome } from '../../core/ports/job-store';
import { type RateWakeBooking, rateWakeStaleBefore, type TaskSlots } from '../../core/ports/waiting-line';
import { Expressions } from './expressions';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { ITEM_KINDS, taskCounterKey } from './table-design';

/** What a claim must pass on the task's counter item: a free slot (`limit`), the rate, or both. */
export interface StartGate {
  limit?: number;
  rate?: RateLimit;
  now: EpochMs;
  /** Gives back a slot handed to a woken job of a task that no longer has a slot limit (ADR 0009). */
  returnSlot?: boolean;
}

/**
 * The transaction item that lets one job of the task start: it takes a slot (only while fewer than
 * `limit` are taken) and/or moves `rateNextAt` one start interval past `now` (only once it has come),
 * never while the task is paused. `seq` grows only when a slot is taken (counter repair compares it).
 */
export function takeStartItem(context: StoreContext, task: string, gate: StartGate) {
  const update = new Expressions().set('kind', ITEM_KINDS.counter);
  // A paused task starts no job: its jobs wait in its line until it is resumed.
  const conditions = [`attribute_not_exists(${update.name('paused')})`];
  if (gate.limit !== undefined) {
    update.add('running', 1).add('seq', 1).set('limit', gate.limit);
    const running = update.name('running');
    conditions.push(`(attribute_not_exists(${running}) OR ${running} < ${update.value(gate.limit)})`);
  }
  if (gate.returnSlot) {
    update.add('running', -1).add('seq', 1);
    conditions.push(`${update.name('running')} > ${update.value(0)}`);
  }
  if (gate.rate) {
    update
      .set('rateNextAt', nextStartAfter(gate.rate, gate.now))
      .set('rateMax', gate.rate.max)
      .set('ratePerSeconds', gate.rate.perSeconds);
    const next = update.name('rateNextAt');
    conditions.push(`(attribute_not_exists(${next}) OR ${next} <= ${update.value(gate.now)})`);
  }
  return {
    Update: {
      TableName: context.tableName,
      Key: taskCounterKey(task),
      ...update.buildUpdate(conditions.join(' AND ')),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/** Why the gate refused, from the counter item as it was: paused or full (no time), or the rate (when). */
export function refusalOf(
  gate: StartGate,
  old: StoredItem | undefined,
): Extract<ClaimOutcome, { status: 'no_slot' }> {
  const running = Number(old?.running ?? gate.limit ?? 0);
  const full = gate.limit !== undefined && running >= gate.limit;
  const nextStartAt = Number(old?.rateNextAt ?? 0);
  if (old?.paused === true || full || !gate.rate || nextStartAt <= gate.now) {
    return { status: 'no_slot', running };
  }
  return { status: 'no_slot', running, nextStartAt };
}

/** See `WaitingLineStore.retakeRateStart`: the claim's gate on the counter alone. */
export async function retakeRateStart(
  context: StoreContext,
  task: string,
  rate: RateLimit,
  now: EpochMs,
): Promise<{ taken: true } | { taken: false; nextStartAt?: EpochMs }> {
  const gate: StartGate = { rate, now };
  const { Update } = takeStartItem(context, task, gate);
  const { TableName: _table, ...update } = Update;
  try {
    await context.update('retakeRateStart', update);
    return { taken: true };
  } catch (error) {
    const { nextStartAt } = refusalOf(gate, conditionFailure(error).old);
    return { taken: false, ...(nextStartAt !== undefined && { nextStartAt }) };
  }
}

/** Books the wake-up for start time `at` on the counter (see `WaitingLineStore.bookRateWake`). */
export async function bookRateWake(
  context: StoreContext,
  { task, at, token, now }: RateWakeBooking,
): Promise<boolean> {
  // The token tells this booking from another's for the same start when the store retries it after
  // its answer was lost: read as another's, nobody was woken for that start.
  const update = new Expressions()
    .set('rateWakeAt', at)
    .set('rateWakeBy', token)
    .set('rateWakeBookedAt', now);
  const wakeAt = update.name('rateWakeAt');
  const stale = `${update.name('rateWakeBookedAt')} < ${update.value(rateWakeStaleBefore(now))}`;
  const condition = `attribute_exists(pk) AND (attribute_not_exists(${wakeAt}) OR ${wakeAt} < ${update.value(at)} OR ${stale})`;
  try {
    await context.update('bookRateWake', {
      Key: taskCounterKey(task),
      ...update.buildUpdate(condition),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    const { old } = conditionFailure(error);
    return old?.rateWakeBy === token && Number(old.rateWakeAt) === at;
  }
}

/** Removes the booking for `at` (see `WaitingLineStore.releaseRateWake`). */
export async function releaseRateWake(context: StoreContext, task: string, at: EpochMs): Promise<void> {
  const update = new Expressions().remove('rateWakeAt', 'rateWakeBy', 'rateWakeBookedAt');
  const condition = `${update.name('rateWakeAt')} = ${update.value(at)}`;
  try {
    await context.update('releaseRateWake', { Key: taskCounterKey(task), ...update.buildUpdate(condition) });
  } catch (error) {
    conditionFailure(error);
  }
}

/** The rate fields of a counter item, for `TaskSlots` (absent for a task that never started under a rate). */
export function rateOf(item: StoredItem): Pick<TaskSlots, 'rateLimit' | 'nextStartAt'> {
  if (item.rateMax === undefined) return {};
  return {
    rateLimit: { max: Number(item.rateMax), perSeconds: Number(item.ratePerSeconds) },
    nextStartAt: Number(item.rateNextAt),
  };
}
