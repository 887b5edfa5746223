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
