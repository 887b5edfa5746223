import type { WireSchedule } from '../admin-contract/schedules';
import type { EpochMs } from '../clock';

/**
 * When a schedule fires next, as people mean it. `next_fire_time` is the next fire time not yet
 * dispatched: the tick sends fires up to 90 s ahead, so for a schedule firing every few seconds it
 * lies a minute or more away although a dispatched fire is seconds away. The earlier of the trigger's
 * next fire time from now (`nextFromNow`, when known) and `next_fire_time` is the answer; a paused
 * schedule keeps `next_fire_time` (it is what resuming would start from).
 */
export function nextFireShown(schedule: WireSchedule, nextFromNow: EpochMs | undefined): EpochMs | null {
  const undispatched = schedule.next_fire_time === null ? null : Date.parse(schedule.next_fire_time);
  if (schedule.paused || nextFromNow === undefined) return undispatched;
  if (schedule.finished) {
    // Nothing after the last dispatched fire runs (its trigger ended, or it reached max_runs).
    const last = schedule.last_fire_time === null ? null : Date.parse(schedule.last_fire_time);
    return last !== null && nextFromNow <= last ? nextFromNow : null;
  }
  return undispatched === null ? nextFromNow : Math.min(nextFromNow, undispatched);
}

/** `paused`, `finished` (no fire time left, dispatched or not) or `active`. */
export function scheduleState(
  schedule: WireSchedule,
  next: EpochMs | null,
): 'paused' | 'finished' | 'active' {
  if (schedule.paused) return 'paused';
  return next === null ? 'finished' : 'active';
}
