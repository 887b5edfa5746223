import type { Clock, EpochMs } from '../../core/clock';
import { isFinalStatus } from '../../core/model/job';
import { scheduleJobId } from '../../core/model/job-id';
import { isFinished, type Schedule } from '../../core/model/schedule';
import { DEDUPE_RECORD_RETENTION_MS, type JobStore } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';

export interface FinishedCleanupDeps {
  scheduleStore: Pick<ScheduleStore, 'getSchedule' | 'removeFinishedSchedule'>;
  jobStore: Pick<JobStore, 'getJobRecord'>;
  clock: Clock;
}

/** A fire cancelled by a schedule change may be sent again (replaced): it has not ended. */
const REPLACEABLE_CANCELLATION = 'ScheduleChanged';

/**
 * Removes a finished schedule (not `keepFinished`) once the job of its last fire has ended, and returns
 * it; undefined when it stays. `endedFireTime`: the fire whose job just ended, or null to check the
 * schedule's last fire whatever it is. The readers of its closing notes (ADR 0011) and the admin calls
 * that finish a schedule or end its last job apply it.
 *
 * Only the last fire's end removes it, so the removal never cancels that fire or its retries (a removed
 * schedule cancels its fires: ADR 0002). The delete is conditional on the schedule as read (still
 * finished, same version, same last fire): a schedule resumed, updated or kept meanwhile stays.
 */
export async function removeFinishedAfterLastFire(
  deps: FinishedCleanupDeps,
  scheduleId: string,
  endedFireTime: EpochMs | null,
): Promise<Schedule | undefined> {
  const schedule = await deps.scheduleStore.getSchedule(scheduleId);
  return schedule && removeIfLastFireEnded(deps, schedule, endedFireTime);
}

/** `removeFinishedAfterLastFire` of the schedule as already read (strongly consistent). */
export async function removeIfLastFireEnded(
  deps: FinishedCleanupDeps,
  schedule: Schedule,
  endedFireTime: EpochMs | null,
): Promise<Schedule | undefined> {
  if (!isFinished(schedule) || schedule.keepFinished) return undefined;
  if (endedFireTime !== null && schedule.lastFireAt !== endedFireTime) return undefined;
  if (schedule.lastFireAt !== null && !(await lastFireEnded(deps, schedule.id, schedule.lastFireAt))) {
    return undefined;
  }
  return deps.scheduleStore.removeFinishedSchedule(
    schedule.id,
    schedule.lastFireAt,
    schedule.version,
    deps.clock.now(),
  );
}

/**
 * The job of the fire has ended: its record (kept as a dedupe record after its result expired) holds a
 * final status; or there is none, and no copy of the fire's message can still be delivered.
 */
async function lastFireEnded(
  deps: FinishedCleanupDeps,
  scheduleId: string,
  fireTime: EpochMs,
): Promise<boolean> {
  const job = await deps.jobStore.getJobRecord(scheduleJobId(scheduleId, fireTime));
  if (!job) return deps.clock.now() > fireTime + DEDUPE_RECORD_RETENTION_MS;
  if (!isFinalStatus(job.status)) return false;
  return !(job.status === 'cancelled' && job.result?.error?.type === REPLACEABLE_CANCELLATION);
}
