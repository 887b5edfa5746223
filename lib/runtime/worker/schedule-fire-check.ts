import { isDeepStrictEqual } from 'node:util';
import type { EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { JobError } from '../../core/model/job';
import type { JobMessageBody } from '../../core/model/job-message';
import { isFinished, type Schedule } from '../../core/model/schedule';
import { revisionOf, type ScheduleRevision, sameRevision } from '../../core/model/schedule-revision';
import type { JobMessage } from '../../core/ports/job-queue';
import type { JobRequest } from '../../core/ports/job-store';
import { compileTrigger } from '../../core/triggers';
import { scheduleFireMessage } from '../dispatch/job-messages';
import { resultTtlSecondsOf } from '../tasks/define-task';
import { cleanedUpScheduleOf } from './fire-of-cleaned-up-schedule';
import { writeWithRetries } from './result-writes';
import { type ClaimedJob, runClaimedJob } from './run-claimed-job';
import { takeoverOrder } from './takeover-order';
import type { MessageOutcome, WorkerContext } from './worker-context';

/** A schedule fire's first delivery: it runs only once its schedule, read after the claim, agrees. */
export interface ScheduleFire {
  /** The schedule's revision the fire was sent under. */
  revision: ScheduleRevision;
  /**
   * When this delivery takes over a run whose worker vanished: when that run was claimed. The run may
   * have started its handler, so a change made after that claim does not govern it: it is retried as
   * the same job. A change made before it does: the vanished worker cannot have got past its check.
   */
  takenOverClaimAt?: EpochMs;
  /**
   * The message taking over is of the run's definition (same task and payload), so its revision is the
   * run's as far as the check can tell; false for a stale message taking over a newer run.
   */
  sentAsTakenOverRun?: boolean;
  /**
   * The last fire of its schedule: sent marked `finalFire` by the tick, or found to be the last fire of
   * the finished schedule when the check reads it (the schedule's `max_runs` was lowered meanwhile).
   * When its job ends, the worker removes the finished schedule (unless `keep_finished`).
   */
  finalFire?: boolean;
  /** Noted in its task's fire log before it was sent (`JobMessageBody.taskLogged`). */
  taskLogged?: boolean;
}

/** The fire a message is the first delivery of, if it is one (retries of a fire that started are not checked). */
export function scheduleFireOf(message: JobMessageBody): ScheduleFire | undefined {
  const { job, attempt, revision, finalFire, taskLogged } = message;
  if (job.origin !== 'schedule' || job.scheduleId === null || attempt !== 1 || !revision) return undefined;
  return { revision, ...(finalFire && { finalFire }), ...(taskLogged && { taskLogged }) };
}

/** A fire that does not run as sent: why, and what (if anything) runs in its place. */
export interface FireCancellation {
  run: false;
  error: JobError;
  /** The fire as the current definition runs it: sent in place of this one, which is cancelled. */
  replacement?: JobMessage;
  /** False when no later delivery may claim it again (its schedule's `max_runs` fires started). @default true */
  reclaimable?: boolean;
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
 * had not started.
 */
export function fireVerdict(
  schedule: Schedule | undefined,
  job: JobRequest,
  fire: ScheduleFire,
  now: number,
): FireVerdict {
  const scheduleId = job.scheduleId ?? '';
  if (!schedule) {
    return cancelled('ScheduleRemoved', `schedule '${scheduleId}' was removed after this fire was sent`);
  }
  const takeover = fire.takenOverClaimAt !== undefined;
  const order =
    fire.takenOverClaimAt === undefined
      ? undefined
      : takeoverOrder(schedule, {
          claimedAt: fire.takenOverClaimAt,
          revision: fire.revision,
          sentAsRun: fire.sentAsTakenOverRun === true,
        });
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
    ? job.task === schedule.task && isDeepStrictEqual(job.payload, schedule.payload) && wanted
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
    fire.finalFire === true || isLastFireOf(schedule, fireTime),
  );
  return { ...cancelled('ScheduleChanged', `${changed}; it runs as the current definition`), replacement };
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

/** The schedule as read has finished, and `fireTime` is its last fire. */
function isLastFireOf(schedule: Schedule, fireTime: EpochMs | null): boolean {
  return isFinished(schedule) && fireTime !== null && schedule.lastFireAt === fireTime;
}

/**
 * A fire of a schedule with `max_runs` that may run counts as started first (ADR 0008): never more than
 * `max_runs` of its fires start, whatever its chain sent (two late readers of one note may each have
 * sent a different missed fire). Counting is idempotent per job, so a takeover of a run its first
 * delivery counted runs on.
 */
async function startWithinMaxRuns(
  ctx: WorkerContext,
  claimed: ClaimedJob,
  schedule: Schedule,
): Promise<FireVerdict> {
  const { maxRuns } = schedule;
  if (maxRuns === null) return { run: true };
  const counted = await writeWithRetries(ctx, claimed.leaseUntil, () =>
    ctx.deps.scheduleStore.startCappedRun({
      scheduleId: schedule.id,
      createdAt: schedule.createdAt,
      maxRuns,
      jobId: claimed.job.id,
      owner: claimed.owner,
    }),
  );
  if (counted === 'started') return { run: true };
  if (counted === 'gone') {
    return cancelled('ScheduleRemoved', `schedule '${schedule.id}' was removed after this fire was sent`);
  }
  return {
    ...cancelled('MaxRunsReached', `schedule '${schedule.id}' ran ${maxRuns} fires (max_runs) already`),
    reclaimable: false,
  };
}

function cancelled(type: string, message: string): FireCancellation {
  return { run: false, error: { type, message } };
}

/**
 * Runs a claimed job; a schedule fire's first delivery only after reading its schedule (strongly
 * consistent) and finding that it still wants the fire as sent. Reading after the claim is what makes
 * remove, pause and update final for fires already in the queue: a change that returned before this
 * read is seen here, and one that returned after it found the job already started (claimed).
 *
 * A fire that does not run is finished as `cancelled`, reclaimably: its replacement (or a fire the
 * schedule sends again after a resume or a re-add) claims it again. The cancellation is written before
 * the replacement is sent, and the message is kept when the send fails, so that a crash in between
 * leaves a message that claims the job again and sends it then.
 *
 * `job.cancelled` is published when the job becomes cancelled, not again when a delivery that reclaimed
 * it (a duplicate, a message kept after a failed send, a replacement once the schedule changed again)
 * cancels it again: that delivery writes its cancellation (its claim set the job running) and sends its
 * replacement, if any, but tells nothing new.
 */
export async function runClaimedFire(
  ctx: WorkerContext,
  claimed: ClaimedJob,
  fire: ScheduleFire | undefined,
): Promise<MessageOutcome> {
  const { job, logger } = claimed;
  if (!fire || job.scheduleId === null) return runClaimedJob(ctx, claimed);
  const { deps } = ctx;
  const scheduleId = job.scheduleId;
  // Retried like the writes that end a run: giving up would leave the claim to its lease's end.
  const live = await writeWithRetries(ctx, claimed.leaseUntil, () =>
    deps.scheduleStore.getSchedule(scheduleId),
  );
  let schedule = live;
  if (schedule && isLastFireOf(schedule, job.fireTime)) fire.finalFire = true;
  if (!schedule) {
    const cleanedUp = await writeWithRetries(ctx, claimed.leaseUntil, () =>
      cleanedUpScheduleOf(deps.scheduleStore, job, fire),
    );
    if (cleanedUp === 'run') return runClaimedJob(ctx, claimed);
    schedule = cleanedUp;
  }
  const checked = fireVerdict(schedule, job, fire, deps.clock.now());
  // A fire judged against a finished schedule's removal record ran within its runs when it was sent.
  const verdict = checked.run && live ? await startWithinMaxRuns(ctx, claimed, live) : checked;
  if (verdict.run) return runClaimedJob(ctx, claimed);

  const finishedAt = deps.clock.now();
  const result = {
    outcome: 'cancelled' as const,
    error: verdict.error,
    startedAt: null,
    finishedAt,
    attempt: claimed.attempt,
  };
  try {
    await writeWithRetries(ctx, claimed.leaseUntil, () =>
      deps.jobStore.finishJob({
        jobId: job.id,
        owner: claimed.owner,
        result,
        expiresAt:
          finishedAt + resultTtlSecondsOf(claimed.definition, deps.config.defaultResultTtlSeconds) * 1000,
        reclaimable: verdict.reclaimable !== false,
      }),
    );
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    return 'done';
  }
  logger.info('fire not run: its schedule changed after it was sent', {
    reason: verdict.error.type,
    ...(claimed.reclaimed && { cancelledBefore: true }),
  });
  if (!claimed.reclaimed) {
    ctx.events.add(claimed.definition.events, {
      type: 'job.cancelled',
      jobId: job.id,
      task: job.task,
      scheduleId,
      attempt: claimed.attempt,
      at: finishedAt,
      result,
    });
  }
  if (!verdict.replacement) return 'done';
  const { failed } = await deps.queue.send([verdict.replacement]);
  if (failed.length === 0) return 'done';
  logger.warn('could not send the fire under the current schedule; the message comes back to try again');
  return 'retry_later';
}
