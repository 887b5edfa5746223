import {
  SCHEDULE_CHANGE_FIELDS,
  scheduleChangesOfRequest,
  wireJob,
  wireSchedule,
} from '../../../core/admin-contract';
import { resumeScheduleParams, updateScheduleParams } from '../../../core/admin-contract/schedules';
import { type EpochMs, latestOf } from '../../../core/clock';
import { ScheduleNotFoundError, VersionConflictError } from '../../../core/errors';
import { runNowJobId } from '../../../core/model/job-id';
import { scheduleJobExtras } from '../../../core/model/job-messages';
import {
  isActive,
  isFinished,
  reachedMaxRuns,
  type Schedule,
  type ScheduleChanges,
} from '../../../core/model/schedule';
import type { JobRequest } from '../../../core/ports/job-store';
import { compileTrigger } from '../../../core/triggers';
import type { ActionContext, ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';
import { requireTask } from '../validation/task-payload';
import { checkTimeoutOverride } from '../validation/timeout-override';
import { type ChainPosition, chainPosition } from './chain-positions';
import { enqueueJobs } from './enqueue';
import { cleanUpIfFinished, publishAfterWrite, scheduleEventNow } from './lifecycle-events';
import { readWithLiveNote } from './live-notes';
import { checkDefinitionOwner } from './ownership';
import { continueChain, type DispatchNowOutcome, finishedEvents, validIdParams } from './schedules';

/** Without `expected_version`, an update re-reads and retries this often when someone else changed the schedule. */
const UPDATE_ATTEMPTS = 3;

/**
 * `update_schedule`: changes any of task, trigger, payload, coalesce, misfire grace, jitter, tags,
 * the task-setting overrides, metadata and description (`null` clears an override, metadata or description).
 * A new trigger gets a new next fire time (dispatched at once when inside the window). The payload is
 * checked against the task it will run with. With `expected_version` the update fails with
 * `version_conflict` if the schedule changed since that version.
 */
export const updateSchedule: ActionHandler<'update_schedule'> = async (raw, context) => {
  for (let attempt = 1; ; attempt++) {
    const check = new InputCheck(context.deps.tasks);
    const parsed = check.params(updateScheduleParams, raw);
    if (!SCHEDULE_CHANGE_FIELDS.some((field) => raw[field] !== undefined)) {
      check.problem('', `nothing to change: give at least one of ${SCHEDULE_CHANGE_FIELDS.join(', ')}`);
    }
    const resolved = check.trigger(raw.trigger, 'trigger', context.now);
    const newTask = raw.task === undefined ? undefined : check.task(raw.task);
    // On due notes: its live note's fire times and runs, carried onto the item by the write (ADR 0007).
    const current = parsed ? await readWithLiveNote(context, parsed.id) : undefined;
    checkDefinitionOwner(context, current);
    if (current && (raw.task !== undefined || raw.payload !== undefined)) {
      const task = raw.task === undefined ? check.task(current.task) : newTask;
      check.payload(task, InputCheck.payloadToCheck(raw.payload, current.payload));
    }
    if (current && (raw.task !== undefined || raw.timeout_seconds !== undefined)) {
      const task = raw.task === undefined ? check.task(current.task) : newTask;
      // A kept override is checked against a new task; `null` clears it (nothing to check).
      const timeout =
        raw.timeout_seconds === undefined ? current.overrides?.timeoutSeconds : raw.timeout_seconds;
      checkTimeoutOverride(check, task, timeout);
    }
    const { params } = check.valid({ params: parsed });
    if (!current) throw new ScheduleNotFoundError(params.id);

    const changes = {
      ...scheduleChangesOfRequest(params, resolved?.trigger, current),
      ...(context.management && { managedBy: context.management }),
    };
    const restart = restartOf(current, changes, context.now);
    const closing = !restart && stopsKeeping(current, changes);
    const position = restart?.position ?? (closing ? current : undefined);
    const chain =
      position && !current.paused
        ? await context.chains.plan(
            {
              id: current.id,
              trigger: changes.trigger ?? current.trigger,
              keepFinished: changes.keepFinished ?? current.keepFinished,
            },
            position,
            context.requestId,
          )
        : undefined;
    let updated: Schedule;
    try {
      updated = await context.deps.scheduleStore.updateSchedule({
        id: params.id,
        changes,
        now: context.now,
        expectedVersion: params.expected_version ?? current.version,
        ...(restart && {
          restart: {
            position: restart.position,
            ...(chain && { start: chain.start }),
            ...(restart.startedRuns !== undefined && { startedRuns: restart.startedRuns }),
          },
        }),
        ...(closing && chain && { closing: chain.start }),
      });
    } catch (error) {
      // Changed by someone else since it was read: read it again, unless a version was expected.
      const retry =
        error instanceof VersionConflictError &&
        params.expected_version === undefined &&
        attempt < UPDATE_ATTEMPTS;
      if (retry) continue;
      throw error;
    }
    const dispatch = await continueChain(context, updated, chain);
    const finishedNow = isFinished(updated) && !isFinished(current);
    await publishAfterWrite(context, [
      scheduleEventNow(context, 'schedule.updated', updated),
      ...(finishedNow && !dispatch.finished ? [scheduleEventNow(context, 'schedule.finished', updated)] : []),
      ...finishedEvents(context, dispatch),
      ...(finishedBefore(dispatch) ? await cleanUpIfFinished(context, updated.id, null) : []),
    ]);
    return { dispatched_jobs: dispatch.jobsSent, schedule: wireSchedule(dispatch.schedule) };
  }
};

/**
 * A finished schedule that the update stops keeping: its closing note removes it once its last fire's
 * job has ended (ADR 0011). One that ended already is removed by the update itself (`cleanUpIfFinished`).
 */
function stopsKeeping(current: Schedule, changes: ScheduleChanges): boolean {
  return isFinished(current) && current.keepFinished && changes.keepFinished === false;
}

/**
 * Whether an update moves the schedule's fire times, and where to: a new trigger (or a cap set on a
 * schedule without one) starts a new chain from now, after what the schedule has run (ADR 0008); a
 * `max_runs` at or below its runs finishes it now; one raised (or removed) above the runs of a schedule
 * that had finished by reaching it starts it again at its trigger's next fire time from now (after its
 * last fire). Any other change leaves its chain going on, planning the new definition.
 */
function restartOf(current: Schedule, changes: ScheduleChanges, now: EpochMs): ChainPosition | undefined {
  const maxRuns = changes.maxRuns === undefined ? current.maxRuns : changes.maxRuns;
  const trigger = changes.trigger ?? current.trigger;
  const becomesCapped = maxRuns !== null && current.maxRuns === null && isActive(current);
  if (changes.trigger !== undefined || becomesCapped) {
    return chainPosition({ trigger, maxRuns }, now, current, now);
  }
  if (changes.maxRuns === undefined) return undefined;
  if (reachedMaxRuns(current.runs, maxRuns)) {
    if (isFinished(current)) return undefined;
    const { lastFireAt, runs } = current;
    return { position: { nextFireAt: null, lastFireAt, runs } };
  }
  const finishedByLimit = isFinished(current) && reachedMaxRuns(current.runs, current.maxRuns);
  if (!finishedByLimit) return undefined;
  // From now, but never a fire time it dispatched or started already: those still run and stay counted.
  const from = Math.max(now, (latestOf(current.lastFireAt, current.lastStartedFireAt) ?? now - 1) + 1);
  const { lastFireAt, runs } = current;
  return { position: { nextFireAt: compileTrigger(trigger).next(from) ?? null, lastFireAt, runs } };
}

/**
 * `resume_schedule`: fire times missed while paused are skipped (the next fire time is counted from
 * now) unless `replay_missed`, which resumes from where the pause stopped the schedule so that its
 * coalesce policy and misfire grace decide what runs. Fires sent before the pause and cancelled by it
 * are claimed again by the resumed schedule's fires. Resuming an active schedule changes nothing.
 */
export const resumeSchedule: ActionHandler<'resume_schedule'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const { params } = check.valid({ params: check.params(resumeScheduleParams, raw) });
  // Read with its live note: a schedule on due notes is never paused, and answers as it stands.
  const current = await readWithLiveNote(context, params.id);
  if (!current) throw new ScheduleNotFoundError(params.id);
  if (!current.paused) return { dispatched_jobs: 0, schedule: wireSchedule(current) };

  const from = resumeFrom(current, params.replay_missed, context);
  const { position } = chainPosition(current, from, current, context.now);
  const chain = await context.chains.plan(current, position, context.requestId);
  const resumed = await context.deps.scheduleStore.resumeSchedule({
    id: params.id,
    now: context.now,
    firesFrom: from,
    position,
    ...(chain && { start: chain.start }),
  });
  const dispatch = await continueChain(context, resumed, chain);
  await publishAfterWrite(context, [
    scheduleEventNow(context, 'schedule.resumed', resumed),
    // Its trigger ended while it was paused: the resume finishes it (one finished before it was paused
    // had its event then)
    ...(isFinished(resumed) && current.nextFireAt !== null
      ? [scheduleEventNow(context, 'schedule.finished', resumed)]
      : []),
    ...finishedEvents(context, dispatch),
    // Finished while paused (its last fire ended or was cancelled by the pause): cleaned up now.
    ...(finishedBefore(dispatch) ? await cleanUpIfFinished(context, resumed.id, null) : []),
  ]);
  return { dispatched_jobs: dispatch.jobsSent, schedule: wireSchedule(dispatch.schedule) };
};

/**
 * Where the resumed schedule's fire times start: now, or when replaying, after the last dispatched fire
 * time or, if earlier, after the pause began (`firesFrom` of a paused schedule): fires sent before the
 * pause and due after it were cancelled by it, and the replay sends them again.
 */
function resumeFrom(schedule: Schedule, replayMissed: boolean, context: ActionContext): number {
  if (!replayMissed) return context.now;
  const afterLastDispatched = schedule.lastFireAt === null ? schedule.createdAt : schedule.lastFireAt + 1;
  return Math.min(afterLastDispatched, schedule.firesFrom + 1);
}

/**
 * `run_schedule_now`: one job now with the schedule's task and payload, outside its fire times (the
 * schedule itself is unchanged). Its id `<scheduleId>@run-<uuid>` cannot collide with a fire's
 * `<scheduleId>@<epochMs>`.
 */
export const runScheduleNow: ActionHandler<'run_schedule_now'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  const schedule = await context.deps.scheduleStore.getSchedule(params.id);
  if (!schedule) throw new ScheduleNotFoundError(params.id);
  requireTask(context.deps.tasks, schedule.task);
  const job: JobRequest = {
    id: runNowJobId(schedule.id, context.newId()),
    task: schedule.task,
    payload: schedule.payload,
    origin: 'run_now',
    scheduleId: schedule.id,
    fireTime: null,
    runAt: context.now,
    startDeadline:
      schedule.misfireGraceSeconds === null ? null : context.now + schedule.misfireGraceSeconds * 1000,
    ...scheduleJobExtras(schedule),
  };
  const [outcome] = await enqueueJobs(context, [{ job, conflictPolicy: 'exception' }]);
  if (!outcome?.ok) throw outcome?.error;
  return { job: wireJob(outcome.job) };
};

/**
 * Finished, and not by this call's own dispatch: one that sends the schedule's final fire leaves its
 * closing note, which removes the schedule once that fire has run (ADR 0011; its job, cancelled by a
 * pause, may be claimed again by this very send: it has not ended).
 */
function finishedBefore(dispatch: DispatchNowOutcome): boolean {
  return isFinished(dispatch.schedule) && dispatch.finished === undefined;
}
