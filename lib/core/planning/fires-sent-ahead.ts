import type { EpochMs } from '../clock';
import type { Schedule } from '../model/schedule';
import { compileTrigger, type FireTimeSource } from '../triggers';
import { latestFireTime } from './latest-fire';

/** The fires a chain sent ahead of a change, which the change cancels (they leave `runs`). */
export interface FiresSentAhead {
  /** Fire times after the cutoff up to `lastFireAt`: each dispatched, counted, and cancelled by the change. */
  count: number;
  /** The latest fire time of the trigger at or before the cutoff (null: none since the schedule was added). */
  lastCounted: EpochMs | null;
}

/**
 * The fires `schedule` (as its live note has it) sent ahead that are due after `after`: those of its
 * trigger in `(after, lastFireAt]`. Every one was dispatched and counted in `runs` (a plan coalesces only
 * fires it missed, never those ahead of it).
 */
export function firesSentAhead(
  schedule: Pick<Schedule, 'trigger' | 'createdAt' | 'lastFireAt'>,
  after: EpochMs,
): FiresSentAhead {
  const { lastFireAt } = schedule;
  if (lastFireAt === null || lastFireAt <= after) return { count: 0, lastCounted: lastFireAt };
  const source = compileTrigger(schedule.trigger);
  return {
    count: countFires(source, after, lastFireAt),
    lastCounted: latestFireTime(source, Math.min(schedule.createdAt, after), after) ?? null,
  };
}

function countFires(source: FireTimeSource, after: EpochMs, until: EpochMs): number {
  let count = 0;
  for (let time = source.next(after + 1); time !== undefined && time <= until; time = source.next(time + 1)) {
    count++;
  }
  return count;
}
