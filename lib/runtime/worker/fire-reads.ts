import type { FireMarks } from '../../core/delivery/delivery';
import type { FireReads } from '../../core/delivery/fire-verdict';
import { sameRevision } from '../../core/model/schedule-revision';
import type { JobRequest } from '../../core/ports/job-store';
import type { RuntimeDeps } from '../dependencies';

/**
 * Reads a fire's schedule for its check, before the claim (ADR 0002): the read's start is the fire's
 * start, so a change that returned before it applies to the fire.
 */
export async function readFireSchedule(
  deps: Pick<RuntimeDeps, 'clock' | 'scheduleStore'>,
  job: JobRequest,
): Promise<FireReads> {
  const at = deps.clock.now();
  const schedule = await deps.scheduleStore.getSchedule(job.scheduleId ?? '');
  return { at, schedule };
}

/**
 * What a fire whose schedule is gone is judged against (ADR 0004): the finished schedule's removal
 * record holds the schedule as it was removed, or (for one never changed) only its revision, of which a
 * fire runs. A schedule its owner removed leaves no record: its fires stay cancelled (ADR 0002). A fire
 * after the record's last fire time is not the removed schedule's.
 */
export async function readRemoval(
  deps: Pick<RuntimeDeps, 'scheduleStore'>,
  job: JobRequest,
  fire: Pick<FireMarks, 'revision'>,
): Promise<NonNullable<FireReads['removed']>> {
  if (job.scheduleId === null || job.fireTime === null) return {};
  const removal = await deps.scheduleStore.getFinishedScheduleRemoval(job.scheduleId);
  if (!removal || removal.lastFireAt === null || job.fireTime > removal.lastFireAt) return {};
  if (removal.schedule) return { schedule: removal.schedule };
  return { revisionRuns: sameRevision(removal.revision, fire.revision) };
}
