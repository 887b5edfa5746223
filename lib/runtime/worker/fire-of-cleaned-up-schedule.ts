import { sameRevision } from '../../core/model/schedule-revision';
import type { JobRequest } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';
import type { ScheduleFire } from './schedule-fire-check';

/**
 * Whether a fire whose schedule is gone was dispatched before that schedule finished and was cleaned
 * up (ADR 0004): the cleanup's removal record names the fire's revision and a last fire at or after it.
 * Such a fire runs as sent; a schedule its owner removed leaves no record, so its fires stay cancelled
 * (ADR 0002). Read only on this rare path (a fire delivered after its schedule is gone).
 */
export async function firedBeforeCleanup(
  store: ScheduleStore,
  job: JobRequest,
  fire: ScheduleFire,
): Promise<boolean> {
  const { scheduleId, fireTime } = job;
  if (scheduleId === null || fireTime === null || fire.revision === null) return false;
  const removal = await store.getFinishedScheduleRemoval(scheduleId);
  if (!removal || removal.lastFireAt === null) return false;
  return sameRevision(removal.revision, fire.revision) && fireTime <= removal.lastFireAt;
}
