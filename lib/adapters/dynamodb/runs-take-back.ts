import type { Schedule } from '../../core/model/schedule';
import type { TakeBackFiresInput } from '../../core/ports/schedule-store';
import { Expressions } from './expressions';
import { itemToSchedule, optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { scheduleKey } from './table-design';

/** The version of the last change whose cancelled fires were taken back out of `runs`. */
const TAKEN_BACK_FOR = 'runsTakenBackFor';

/**
 * One relative, conditional update: `runs - count`, marked with the change's version so that a retry
 * (or a repeat) of it applies nothing. It moves `lastFireAt` back only while it is still the one the
 * change wrote; once a dispatch has moved it, `runs` alone is taken back.
 */
export async function takeBackFires(
  context: StoreContext,
  input: TakeBackFiresInput,
): Promise<Schedule | undefined> {
  for (const movesLastFire of [true, false]) {
    const update = new Expressions();
    update.setExpression('runs', `${update.name('runs')} - ${update.value(input.count)}`);
    update.set(TAKEN_BACK_FOR, input.changed.version);
    const marker = update.name(TAKEN_BACK_FOR);
    let condition =
      `${update.name('createdAt')} = ${update.value(input.changed.createdAt)}` +
      ` AND ${update.name('runs')} >= ${update.value(input.count)}` +
      ` AND (attribute_not_exists(${marker}) OR ${marker} < ${update.value(input.changed.version)})`;
    if (movesLastFire) {
      update.setOrRemove('lastFireAt', input.lastCounted);
      condition += ` AND ${update.name('lastFireAt')} = ${update.value(input.changed.lastFireAt)}`;
    }
    try {
      const output = await context.update('takeBackFires', {
        Key: scheduleKey(input.id),
        ...update.build(condition),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return itemToSchedule(output.Attributes ?? {});
    } catch (error) {
      const { old } = conditionFailure(error);
      if (!old || old.createdAt !== input.changed.createdAt) return undefined;
      const takenBack = (optionalNumber(old[TAKEN_BACK_FOR]) ?? 0) >= input.changed.version;
      const lastFireMoved = optionalNumber(old.lastFireAt) !== input.changed.lastFireAt;
      if (takenBack || !movesLastFire || !lastFireMoved) return itemToSchedule(old);
    }
  }
  return undefined;
}
