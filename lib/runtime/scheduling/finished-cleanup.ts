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

/**
 * How long a lease-less tick's advance past a fire may still be written, counted from when the fire was
 * claimed (or its fire time, if later): the tick sent it before the claim, and moves the schedule on
 * right after its round's sends.
 */
const ADVANCE_WAIT_MS = 60_000;
/** How soon a fire that ended before that advance looks again. */
const ADVANCE_RECHECK_MS = 1_000;

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
  const outcome = await cleanUpAfterFire(deps, scheduleId, endedFireTime, recordKeptMs);
  return outcome.removed;
}

/**
 * What the cleanup did: `removed`, or `releasePendingMs` when the fire that ended was sent by a lease
 * not yet released (a fire due at once can end before the tick writes that the schedule finished):
 * the caller tries again once that lease has ended (its release, or the next lease's, finishes it).
 */
export interface CleanupOutcome {
  removed?: Schedule;
  releasePendingMs?: number;
}

/**
 * As `removeFinishedAfterLastFire`, telling apart a release still pending (see `CleanupOutcome`).
 * `finalFire`: the fire that ended was sent as its schedule's last (a retry of another fire is not).
 */
export async function cleanUpAfterFire(
  deps: FinishedCleanupDeps,
  scheduleId: string,
  endedFireTime: EpochMs | null,
  recordKeptMs = Number.POSITIVE_INFINITY,
  finalFire = true,
): Promise<CleanupOutcome> {
  const schedule = await deps.scheduleStore.getSchedule(scheduleId);
  if (!schedule) return {};
  // A lease that expired instead was lost with its tick: the next lease re-plans from the stored next
  // fire time and sends the final fire again, whose delivery (a duplicate) tries the cleanup again.
  const leaseLeftMs = (schedule.leaseUntil ?? 0) - deps.clock.now();
  const sentByLeaseNotYetReleased =
    endedFireTime !== null &&
    leaseLeftMs > 0 &&
    (schedule.lastFireAt === null || schedule.lastFireAt < endedFireTime);
  if (sentByLeaseNotYetReleased) return { releasePendingMs: leaseLeftMs };
  // Sent without a lease (ADR 0005): the tick moves the schedule past its fires right after sending
  // them, so a fire due at once can end first. Look again shortly while that write can still come; after
  // that its tick died, and the next tick sends the fire again, whose delivery tries the cleanup again.
  // A schedule on due notes (ADR 0007) keeps its conversion's next fire time, behind every fire since:
  // only its last fire waits for the write that finishes it (a retry of any other has nothing to wait for).
  const advancePending =
    endedFireTime !== null &&
    !isFinished(schedule) &&
    schedule.nextFireAt !== null &&
    schedule.nextFireAt <= endedFireTime &&
    (schedule.onNotes !== true || finalFire);
  if (
    advancePending &&
    deps.clock.now() < (await claimedAt(deps, schedule.id, endedFireTime)) + ADVANCE_WAIT_MS
  ) {
    return { releasePendingMs: ADVANCE_RECHECK_MS };
  }
  return { removed: await removeIfLastFireEnded(deps, schedule, endedFireTime, recordKeptMs) };
}

/**
 * When the fire's job was claimed (its start, or its end when it never started), and no earlier than its
 * fire time: a fire sent late (after an outage) is claimed late, and its advance comes after that.
 */
async function claimedAt(deps: FinishedCleanupDeps, scheduleId: string, fireTime: EpochMs): Promise<EpochMs> {
  const job = await deps.jobStore.getJob(scheduleJobId(scheduleId, fireTime), deps.clock.now());
  return Math.max(fireTime, job?.startedAt ?? job?.finishedAt ?? fireTime);
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
