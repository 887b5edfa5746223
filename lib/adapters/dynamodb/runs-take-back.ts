import type { FiresTakenBack } from '../../core/ports/schedule-store';
import { Expressions } from './expressions';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { scheduleKey } from './table-design';

/**
 * Adds a change's take-back (ADR 0004) to its update: `runs` less the fires cancelled, `lastFireAt`
 * moved back, and the condition that the schedule is as read (its version and last fire time).
 */
export function withTakeBack(update: Expressions, takeBack: FiresTakenBack): string {
  const runs = update.name('runs');
  update.setExpression(
    'runs',
    `if_not_exists(${runs}, ${update.value(0)}) - ${update.value(takeBack.count)}`,
  );
  update.setOrRemove('lastFireAt', takeBack.lastFireAt);
  const lastFire =
    takeBack.seenLastFireAt === null
      ? `attribute_not_exists(${update.name('lastFireAt')})`
      : `${update.name('lastFireAt')} = ${update.value(takeBack.seenLastFireAt)}`;
  return ` AND ${update.name('version')} = ${update.value(takeBack.seenVersion)} AND ${lastFire}`;
}

/** Whether the stored item no longer is the one a take-back was planned from (a dispatch moved it). */
export function movedSince(old: StoredItem, takeBack: FiresTakenBack): boolean {
  return optionalNumber(old.lastFireAt) !== takeBack.seenLastFireAt;
}

/** `runs + count`, only while the schedule is the one added at `createdAt`. */
export async function giveBackRuns(
  context: StoreContext,
  id: string,
  count: number,
  createdAt: number,
): Promise<void> {
  const update = new Expressions().add('runs', count);
  try {
    await context.update('giveBackRuns', {
      Key: scheduleKey(id),
      ...update.buildUpdate(`${update.name('createdAt')} = ${update.value(createdAt)}`),
    });
  } catch (error) {
    // Removed (or removed and added again) since: nothing to give back to.
    conditionFailure(error);
  }
}
