import type { EpochMs } from '../clock';
import { sameJson } from '../json';
import type { JobError, TakenOverRun } from '../model/job';
import { scheduleFireMessage } from '../model/job-messages';
import { isFinished, type Schedule } from '../model/schedule';
import { revisionOf, type ScheduleRevision, sameRevision } from '../model/schedule-revision';
import type { JobMessage } from '../ports/job-queue';
import type { JobRequest } from '../ports/job-store';
import { compileTrigger } from '../triggers';
import { type TakeoverOrder, takeoverOrder } from './takeover-order';

/** A fire as its delivery knows it: the revision it was sent under, and whether it takes over a run. */
export interface CheckedFire {
  revision: ScheduleRevision;
  /** Sent as its schedule's last fire. */
  finalFire: boolean;
  /** When this delivery takes over a run whose worker vanished: that run's claim. */
  takeover?: TakenOverRun;
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
 * Decides what a fire sent under `fire.revision` does now that its schedule reads as `schedule`:
 * - removed or paused: cancelled;
 * - same revision: runs;
 * - another revision (the schedule was updated, resumed, or removed and added again): cancelled, and
 *   sent again under the current revision (its task, payload and misfire grace) when its fire time is
 *   one of the current trigger's at or after `firesFrom`; otherwise the current definition does not
 *   run it (a new trigger, or a resume that skips the fire times missed while paused).
 * A fire the current revision sent itself as well is deduplicated at claim: the job id is the same.
 * A takeover (`job` is then the run taken over, as stored) is a retry of that run when the schedule
 * changed only after the run was claimed (`takeoverOrder`), or when the run is of the current
 * definition and the current trigger fires then; when the changes may have come before and after the
 * claim, a paused schedule cancels it and any other change ends it as `ScheduleChanged` without a
 * replacement; otherwise the run was stale and never got past its check: the fire is decided as if it
 * had not started. A takeover's cancellation is final unless the run never got past its check: its
 * handler may have started, and a later delivery that claimed it again would be judged as a first
 * start and could run the fire as another definition.
 */
export function fireVerdict(
  schedule: Schedule | undefined,
  job: JobRequest,
  fire: CheckedFire,
  now: number,
): FireVerdict {
  const { takeover } = fire;
  const order = takeover && schedule ? takeoverOrder(schedule, takeover) : undefined;
  const verdict = verdictOn(schedule, job, fire, order, now);
  const mayHaveStarted = takeover !== undefined && order !== 'before_claim';
  return !verdict.run && mayHaveStarted ? { ...verdict, reclaimable: false } : verdict;
}

function verdictOn(
  schedule: Schedule | undefined,
  job: JobRequest,
  fire: CheckedFire,
  order: TakeoverOrder | undefined,
  now: number,
): FireVerdict {
  const scheduleId = job.scheduleId ?? '';
  if (!schedule) {
    return cancelled('ScheduleRemoved', `schedule '${scheduleId}' was removed after this fire was sent`);
  }
  const { takeover } = fire;
  if (order === 'after_claim') return { run: true };
  if (schedule.paused) {
    return cancelled('SchedulePaused', `schedule '${scheduleId}' was paused after this fire was sent`);
  }
  const current = revisionOf(schedule);
  const fireTime = job.fireTime;
  const wanted = firesThen(schedule, fireTime);
  // A run of the current definition taken over is retried only if the current definition fires then:
  // a resume keeps the definition but skips the fire times before it.
  const runsCurrent = takeover
    ? job.task === schedule.task && sameJson(job.payload, schedule.payload) && wanted
    : sameRevision(fire.revision, current);
  if (runsCurrent) return { run: true };

  const changed = `schedule '${scheduleId}' changed (now version ${current.version}) after this fire was sent`;
  if (order === 'unknown') {
    // Neither the old definition (the handler may never have started) nor a second first attempt
    // (it may have): the fire ends here, visibly.
    return cancelled(
      'ScheduleChanged',
      `${changed}, more than once while the worker of its run had vanished: whether that run started is unknown, so it is not run again`,
    );
  }
  if (!wanted || fireTime === null)
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
    fire.finalFire || isLastFireOf(schedule, fireTime),
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

/** The schedule as read has finished, and `fireTime` is its last fire. */
export function isLastFireOf(schedule: Schedule, fireTime: EpochMs | null): boolean {
  return isFinished(schedule) && fireTime !== null && schedule.lastFireAt === fireTime;
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
