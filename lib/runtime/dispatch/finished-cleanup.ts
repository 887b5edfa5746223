import type { Clock, EpochMs } from '../../core/clock';
import { isFinalStatus, type Job } from '../../core/model/job';
import { scheduleJobId } from '../../core/model/job-id';
import { isFinished, type Schedule } from '../../core/model/schedule';
import type { JobStore } from '../../core/ports/job-store';
import type { ScheduleStore } from '../../core/ports/schedule-store';

export interface FinishedCleanupDeps {
  scheduleStore: ScheduleStore;
  jobStore: JobStore;
  clock: Clock;
}

/** A fire cancelled by a schedule change may be sent again (replaced): it has not ended. */
const REPLACEABLE_CANCELLATION = 'ScheduleChanged';

/**
 * Removes a finished schedule (not `keepFinished`) once the job of its last fire has ended, and returns
 * it; undefined when it stays. `endedFireTime`: the fire whose job just ended (the worker), or null to
 * check the schedule's last fire whatever it is (an update that finished the schedule). A last fire
 * without a job record has not been claimed yet (the worker removes the schedule when it ends), unless
 * it is older than `recordKeptMs` (the task's result TTL): then its record has expired.
 *
 * Only the last fire's end removes it, so the removal never cancels that fire or its retries (a removed
 * schedule cancels its fires: ADR 0002); retries are not checked, so they could not be cancelled anyway.
 * The delete is conditional on the schedule as read (still finished, same version, same last fire):
 * a schedule resumed, updated or kept meanwhile stays.
 */
export async function removeFinishedAfterLastFire(
  deps: FinishedCleanupDeps,
  scheduleId: string,
  endedFireTime: EpochMs | null,
  recordKeptMs = Number.POSITIVE_INFINITY,
): Promise<Schedule | undefined> {
  // A chain finishes its schedule before it sends the last fire (ADR 0008): the job of that fire, however
  // soon it ends, finds the schedule finished.
  const schedule = await deps.scheduleStore.getSchedule(scheduleId);
  return schedule && removeIfLastFireEnded(deps, schedule, endedFireTime, recordKeptMs);
}

async function removeIfLastFireEnded(
  deps: FinishedCleanupDeps,
  schedule: Schedule,
  endedFireTime: EpochMs | null,
  recordKeptMs: number,
): Promise<Schedule | undefined> {
  if (!isFinished(schedule) || schedule.keepFinished) return undefined;
  if (endedFireTime !== null && schedule.lastFireAt !== endedFireTime) return undefined;
  if (schedule.lastFireAt !== null) {
    const now = deps.clock.now();
    const job = await deps.jobStore.getJob(scheduleJobId(schedule.id, schedule.lastFireAt), now);
    const expired = !job && now > schedule.lastFireAt + recordKeptMs;
    if (!expired && !hasEnded(job)) return undefined;
  }
  return deps.scheduleStore.removeFinishedSchedule(
    schedule.id,
    schedule.lastFireAt,
    schedule.version,
    deps.clock.now(),
  );
}

function hasEnded(job: Job | undefined): boolean {
  if (!job || !isFinalStatus(job.status)) return false;
  return !(job.status === 'cancelled' && job.result?.error?.type === REPLACEABLE_CANCELLATION);
}
