import type { EpochMs } from '../clock';
import type { JobError } from '../model/job';
import { scheduleFireMessage } from '../model/job-messages';
import { isFinished, type Schedule } from '../model/schedule';
import { revisionOf, type ScheduleRevision, sameRevision } from '../model/schedule-revision';
import type { JobMessage } from '../ports/job-queue';
import type { JobRequest } from '../ports/job-store';
import { compileTrigger } from '../triggers';

/** A fire as its delivery knows it: the revision it was sent (or its run claimed) under. */
export interface CheckedFire {
  revision: ScheduleRevision;
}

/** What a fire's delivery read of its schedule before its claim (ADR 0002). */
export interface FireReads {
  /** When the read began: the fire's start, if its claim takes the job. */
  at: EpochMs;
  schedule: Schedule | undefined;
  /**
   * The finished schedule's removal record, read when the schedule is gone (ADR 0004): the schedule as
   * removed, or (for a schedule never changed, whose record keeps only its revision) whether the fire
   * is of that revision and so runs.
   */
  removed?: { schedule?: Schedule; revisionRuns?: boolean };
}

/** A fire that does not run as sent: why, and what (if anything) runs in its place. */
export interface FireCancellation {
  run: false;
  error: JobError;
  /** The fire as the current definition runs it: sent in place of this one, which is cancelled. */
  replacement?: JobMessage;
  /** False when no later delivery may claim it again (its schedule's `max_runs` fires started). */
  reclaimable: boolean;
}

/** What a claimed fire does, given its schedule as it is now. */
export type FireVerdict = { run: true } | FireCancellation;

/**
 * The verdict on a fire from what its delivery read before the claim: the schedule, or when it is
 * gone, the finished schedule's removal record (a schedule its owner removed leaves none).
 */
export function checkedVerdict(
  reads: FireReads,
  job: JobRequest,
  fire: CheckedFire,
  now: EpochMs,
): FireVerdict {
  if (!reads.schedule && reads.removed?.revisionRuns) return { run: true };
  return fireVerdict(reads.schedule ?? reads.removed?.schedule, job, fire, now);
}

/**
 * Decides what a fire sent under `fire.revision` does now that its schedule reads as `schedule`:
 * - removed or paused: cancelled;
 * - same revision: runs;
 * - another revision (the schedule was updated, resumed, or removed and added again): cancelled, and
 *   sent again under the current revision (its task, payload and misfire grace) when its fire time is
 *   one of the current trigger's at or after `firesFrom`; otherwise the current definition does not
 *   run it (a new trigger, or a resume that skips the fire times missed while paused).
 * A fire the current revision sent itself as well is deduplicated at claim: the job id is the same.
 * A revision never runs again once its check failed (a pause and a resume change the version; a
 * removed schedule added again has another `createdAt`), so a takeover of a run whose check failed
 * (`job` is then the run as stored, `fire.revision` its claimed revision) is decided here as a first
 * start: its handler never started.
 */
export function fireVerdict(
  schedule: Schedule | undefined,
  job: JobRequest,
  fire: CheckedFire,
  now: number,
): FireVerdict {
  const scheduleId = job.scheduleId ?? '';
  if (!schedule) {
    return cancelled('ScheduleRemoved', `schedule '${scheduleId}' was removed after this fire was sent`);
  }
  if (schedule.paused) {
    return cancelled('SchedulePaused', `schedule '${scheduleId}' was paused after this fire was sent`);
  }
  const current = revisionOf(schedule);
  if (sameRevision(fire.revision, current)) return { run: true };
  const fireTime = job.fireTime;
  const changed = `schedule '${scheduleId}' changed (now version ${current.version}) after this fire was sent`;
  if (!firesThen(schedule, fireTime) || fireTime === null)
    return cancelled('ScheduleChanged', `${changed}; its current trigger does not fire then`);
  if (missedByMove(fire.revision, schedule, fireTime)) {
    return cancelled(
      'ScheduleChanged',
      `${changed}; it decided itself which fires due before the change run`,
    );
  }
  const grace = schedule.misfireGraceSeconds;
  const replacement = scheduleFireMessage(
    schedule,
    {
      jobId: job.id,
      fireTime,
      runAt: job.runAt,
      startDeadline: grace === null ? null : job.runAt + grace * 1000,
    },
    now,
  );
  return { ...cancelled('ScheduleChanged', `${changed}; it runs as the current definition`), replacement };
}

/** The verdict on a fire whose start the schedule's `max_runs` refused (`startCappedRun`). */
export function cappedStartRefused(schedule: Schedule): FireCancellation {
  return {
    ...cancelled(
      'MaxRunsReached',
      `schedule '${schedule.id}' ran ${schedule.maxRuns} fires (max_runs) already`,
    ),
    reclaimable: false,
  };
}

/**
 * The schedule's current definition fires at `fireTime`: one of its trigger's times, at or after
 * `firesFrom`, and not after its last fire when it has finished. (A fire past `max_runs` that runs in
 * place of another is refused when it starts: `startCappedRun`.)
 */
function firesThen(schedule: Schedule, fireTime: EpochMs | null): boolean {
  if (fireTime === null || fireTime < schedule.firesFrom) return false;
  if (compileTrigger(schedule.trigger).next(fireTime) !== fireTime) return false;
  return !isFinished(schedule) || (schedule.lastFireAt !== null && fireTime <= schedule.lastFireAt);
}

/**
 * The fire was sent before a change that moved the schedule's fire times (a new trigger, pause, resume,
 * replace: `firesFrom` differs from the message's), and is due before the schedule's latest change. That
 * change planned from then on itself (a replay coalesced the fires it missed, `max_runs` cut its plan),
 * so the fire is not sent again in its place; one due after it is (the change may not have dispatched
 * it yet).
 */
function missedByMove(revision: ScheduleRevision, schedule: Schedule, fireTime: EpochMs): boolean {
  const moved = revision.firesFrom !== schedule.firesFrom;
  return moved && fireTime < schedule.updatedAt;
}

function cancelled(type: string, message: string): FireCancellation {
  return { run: false, error: { type, message }, reclaimable: true };
}
