import type { WireSchedule } from '../../core/admin-contract';
import type { EpochMs } from '../../core/clock';
import { nextFireShown } from '../../core/format/schedule-state';
import { previewFireTimes } from '../../core/triggers';

/** When a schedule fires next ({@link nextFireShown}), its trigger's next fire time computed here. */
export function upcomingFire(schedule: WireSchedule, now: EpochMs): EpochMs | null {
  if (schedule.paused) return nextFireShown(schedule, undefined);
  let fromTrigger: EpochMs | undefined;
  try {
    fromTrigger = previewFireTimes(schedule.trigger, now, 1)[0];
  } catch {
    fromTrigger = undefined;
  }
  return nextFireShown(schedule, fromTrigger);
}

/**
 * The fire time this change dispatched to run now, if any: the first fire time at or after the change
 * (`updated_at`) when it has come already, as for a new interval, whose first fire is its start.
 */
export function fireDispatchedNow(
  schedule: WireSchedule,
  dispatchedJobs: number,
  now: EpochMs,
): EpochMs | undefined {
  if (schedule.paused || dispatchedJobs === 0) return undefined;
  let first: EpochMs | undefined;
  try {
    first = previewFireTimes(schedule.trigger, Date.parse(schedule.updated_at), 1)[0];
  } catch {
    first = undefined;
  }
  return first !== undefined && first <= now ? first : undefined;
}
