import type { EpochMs } from '../../core/clock';
import { previewFireTimes } from '../../core/triggers';
import type { WireSchedule } from '../admin/wire';

/**
 * When an active schedule fires next, as people mean it. The admin API's `next_fire_time` is the
 * next fire time not yet dispatched: the tick sends fires up to 90 s ahead, so for a schedule
 * firing every few seconds it lies a minute or more away although a dispatched fire is seconds
 * away. The earlier of the trigger's next fire time from now and `next_fire_time` is the answer;
 * a paused schedule keeps `next_fire_time` (it is what resuming would start from).
 */
export function upcomingFire(schedule: WireSchedule, now: EpochMs): EpochMs | null {
  const undispatched = schedule.next_fire_time === null ? null : Date.parse(schedule.next_fire_time);
  if (schedule.paused) return undispatched;
  let fromTrigger: EpochMs | undefined;
  try {
    fromTrigger = previewFireTimes(schedule.trigger, now, 1)[0];
  } catch {
    return undispatched;
  }
  if (fromTrigger === undefined) return undispatched;
  return undispatched === null ? fromTrigger : Math.min(fromTrigger, undispatched);
}
