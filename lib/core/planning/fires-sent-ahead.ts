import type { EpochMs } from '../clock';
import type { Schedule } from '../model/schedule';
import { compileTrigger, type FireTimeSource } from '../triggers';
import type { TriggerSpec } from '../triggers/schema';
import { latestFireTime } from './latest-fire';

/**
 * How long after an admin call's start its change may still be landing, plus the clock skew allowed
 * between hosts: a fire due later than this has not got past its worker's check (a worker reads the
 * schedule only once the fire's run time has come) when the change lands. A call that takes longer
 * gives back what it took too much (`firesBetween`).
 */
export const CHANGE_SETTLE_MS = 5_000;
/** The clock skew allowed between hosts. */
export const CLOCK_SKEW_MS = 1_000;

/** What a change that cancels the fires sent ahead takes back out of `runs`. */
export interface FiresSentAhead {
  /** Fire times after the cutoff up to `lastFireAt`: each dispatched, counted, and cancelled by the change. */
  count: number;
  /** The latest fire time of the trigger at or before the cutoff (null: none since the schedule was added). */
  lastCounted: EpochMs | null;
}

/**
 * The fires `schedule` sent ahead that are due after `after`: those of its trigger in
 * `(after, lastFireAt]`. Every one was dispatched and counted in `runs` (a plan coalesces only fires it
 * missed, never those ahead of it).
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

/** How many fire times `trigger` has in `(after, until]`. */
export function firesBetween(trigger: TriggerSpec, after: EpochMs, until: EpochMs): number {
  return countFires(compileTrigger(trigger), after, until);
}

function countFires(source: FireTimeSource, after: EpochMs, until: EpochMs): number {
  let count = 0;
  for (let time = source.next(after + 1); time !== undefined && time <= until; time = source.next(time + 1)) {
    count++;
  }
  return count;
}
