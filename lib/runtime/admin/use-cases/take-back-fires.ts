import type { Schedule } from '../../../core/model/schedule';
import { CHANGE_SETTLE_MS, firesSentAhead } from '../../../core/planning/fires-sent-ahead';
import type { ActionContext } from '../context';

/**
 * After a change that cancels the fires sent ahead (a pause, a new trigger, a replace), takes them back
 * out of `runs`, so that the fires sent in their place are counted once and `max_runs` fires run.
 * Counted from the clock after the change was written: a fire due within `CHANGE_SETTLE_MS` of it may
 * have got past its check first and stays counted (its schedule may finish a fire early, never late).
 * `before`: the schedule as read before the change (its trigger made the fires sent ahead).
 */
export async function takeBackCancelledFires(
  context: ActionContext,
  changed: Schedule,
  before: Pick<Schedule, 'trigger' | 'firesFrom'>,
): Promise<Schedule> {
  const after = context.deps.clock.now() + CHANGE_SETTLE_MS;
  const { count, lastCounted } = firesSentAhead({ ...before, lastFireAt: changed.lastFireAt }, after);
  if (count === 0) return changed;
  const takenBack = await context.deps.scheduleStore.takeBackFires({
    id: changed.id,
    changed,
    count,
    lastCounted,
  });
  return takenBack ?? changed;
}

/** `runs` once a change made now has taken back the fires sent ahead (at most: see `takeBackCancelledFires`). */
export function runsAfterChange(schedule: Schedule, now: number): number {
  return schedule.runs - firesSentAhead(schedule, now).count;
}
