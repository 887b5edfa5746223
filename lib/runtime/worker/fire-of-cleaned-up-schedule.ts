import type { Schedule } from '../../core/model/schedule';
import { sameRevision } from '../../core/model/schedule-revision';
import type { JobRequest } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';
import type { ScheduleFire } from './schedule-fire-check';

/**
 * What a fire whose schedule is gone is judged against (ADR 0004). The cleanup of a finished schedule
 * leaves a record of the schedule as it was removed; a fire at or before its last fire time was
 * dispatched while that schedule, or an earlier revision of it, wanted it. It is judged against the
 * removed schedule as if that were still there: a fire of its revision runs as sent, a fire sent before
 * its last update is replaced (or not) as that update would have it, and a run taken over is retried
 * when it was claimed before that update. A schedule its owner removed leaves no record, so its fires
 * stay cancelled (ADR 0002). A record written before it kept the schedule names only a revision: a fire
 * of that revision runs (`'run'`). Read only on this rare path (a fire delivered after its schedule is gone).
 */
export async function cleanedUpScheduleOf(
  store: ScheduleStore,
  job: JobRequest,
  fire: ScheduleFire,
): Promise<Schedule | 'run' | undefined> {
  const { scheduleId, fireTime } = job;
  if (scheduleId === null || fireTime === null) return undefined;
  const removal = await store.getFinishedScheduleRemoval(scheduleId);
  if (!removal || removal.lastFireAt === null || fireTime > removal.lastFireAt) return undefined;
  if (removal.schedule) return removal.schedule;
  return fire.revision !== null && sameRevision(removal.revision, fire.revision) ? 'run' : undefined;
}
