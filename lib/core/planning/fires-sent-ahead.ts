import type { EpochMs } from '../clock';
import type { Schedule } from '../model/schedule';
import { compileTrigger } from '../triggers';
import { latestFireTime } from './latest-fire';

/**
 * How long after a change was written a fire sent ahead may still have got past its worker's check,
 * which reads the schedule only once the fire's run time has come (by the worker's clock): the clock
 * skew allowed between hosts.
 */
export const CHANGE_SETTLE_MS = 1_000;

/** Fire times a change cancelled, to be taken back out of `runs`, and the latest fire time still counted. */
export interface FiresSentAhead {
  count: number;
  /** The latest fire time at or before the cutoff (`null`: none since `firesFrom`). */
  lastCounted: EpochMs | null;
}

/**
 * The fires the schedule dispatched (each counted in `runs`) that are due after `after`: those of
 * its trigger in `(after, lastFireAt]`. A pause, a new trigger or a replace written before `after`
 * cancels each of them when it comes up (ADR 0002), so it did not run: a fire runs only after its
 * worker read the schedule, and no worker reads before its fire time.
 */
export function firesSentAhead(
  schedule: Pick<Schedule, 'trigger' | 'firesFrom' | 'lastFireAt'>,
  after: EpochMs,
): FiresSentAhead {
  const { lastFireAt } = schedule;
  if (lastFireAt === null || lastFireAt <= after) return { count: 0, lastCounted: lastFireAt };
  const source = compileTrigger(schedule.trigger);
  let count = 0;
  for (
    let time = source.next(after + 1);
    time !== undefined && time <= lastFireAt;
    time = source.next(time + 1)
  ) {
    count++;
  }
  const from = Math.min(schedule.firesFrom, after);
  return { count, lastCounted: latestFireTime(source, from, after) ?? null };
}
