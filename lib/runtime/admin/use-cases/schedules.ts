import { DEFAULT_PAYLOAD, scheduleOfRequest, wireSchedule } from '../../../core/admin-contract';
import {
  addScheduleParams,
  listSchedulesParams,
  scheduleIdParams,
} from '../../../core/admin-contract/schedules';
import { ScheduleMovedError, ScheduleNotFoundError } from '../../../core/errors';
import {
  type ConflictPolicy,
  isFinished,
  reachedMaxRuns,
  type Schedule,
  type ScheduleDefinition,
} from '../../../core/model/schedule';
import type { ActionContext, ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';
import { checkTimeoutOverride } from '../validation/timeout-override';
import { type DispatchNowOutcome, dispatchIfInsideWindow } from './dispatch-now';
import { cleanUpIfFinished, publishAfterWrite, scheduleEventNow } from './lifecycle-events';
import { notedStateOf, readWithLiveNote, withLiveNote, withLiveNotes } from './live-notes';
import {
  lastCountedAfter,
  MOVED_ATTEMPTS,
  nextFireAfterChange,
  runsAfter,
  settleTakeBack,
  takeBackOf,
} from './take-back-fires';

/**
 * `add_schedule`: stores a schedule and, when its first fire time is inside the lookahead window,
 * dispatches it at once. Defaults: a generated id, the rest as `scheduleOfRequest` fills them in,
 * conflict policy `exception`.
 */
export const addSchedule: ActionHandler<'add_schedule'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const parsed = check.params(addScheduleParams, raw);
  const resolved = check.trigger(raw.trigger, 'trigger', context.now);
  const task = check.task(raw.task);
  check.payload(task, InputCheck.payloadToCheck(raw.payload, DEFAULT_PAYLOAD));
  checkTimeoutOverride(check, task, raw.timeout_seconds);
  const { params, trigger, registered } = check.valid({
    params: parsed,
    trigger: resolved,
    registered: task,
  });

  const schedule = scheduleOfRequest(params, {
    id: params.id ?? context.newId(),
    trigger: trigger.trigger,
    taskMisfireGraceSeconds: registered.definition.misfireGraceSeconds,
  });
  const conflictPolicy = params.conflict_policy ?? 'exception';
  const { replaced, finishedFromStart, added } = await writeSchedule(
    context,
    schedule,
    trigger.nextFireAt,
    conflictPolicy,
  );
  const dispatch =
    added.status === 'kept'
      ? { schedule: await withLiveNote(context, added.schedule), jobsSent: 0 }
      : await dispatchIfInsideWindow(context, added.schedule);
  if (added.status !== 'kept') {
    await publishAfterWrite(context, [
      scheduleEventNow(
        context,
        added.status === 'added' ? 'schedule.added' : 'schedule.updated',
        added.schedule,
      ),
      ...finishedEvents(context, dispatch),
      ...(finishedFromStart && isFinished(added.schedule)
        ? [
            ...(replaced && !isFinished(replaced)
              ? [scheduleEventNow(context, 'schedule.finished', added.schedule)]
              : []),
            ...(await cleanUpIfFinished(context, added.schedule.id, added.schedule.task, null)),
          ]
        : []),
    ]);
  }
  return {
    status: added.status,
    dispatched_jobs: dispatch.jobsSent,
    schedule: wireSchedule(dispatch.schedule),
  };
};

/**
 * Adds (or replaces) the schedule. A replace keeps the schedule's runs (ADR 0004), less the fires the
 * replaced definition sent ahead (they are cancelled): at its max_runs already, it is finished from the
 * start.
 */
async function writeSchedule(
  context: ActionContext,
  schedule: ScheduleDefinition,
  nextFireAt: number | null,
  conflictPolicy: ConflictPolicy,
) {
  const { scheduleStore } = context.deps;
  for (let attempt = 1; ; attempt++) {
    // Read with its live note: a replace carries the note's runs and last fire (ADR 0007).
    const replaced = conflictPolicy === 'replace' ? await readWithLiveNote(context, schedule.id) : undefined;
    const noted = replaced && notedStateOf(replaced);
    const takeBack =
      replaced && takeBackOf(replaced, context, schedule.maxRuns !== null || replaced.maxRuns !== null);
    const finishedFromStart =
      replaced !== undefined && reachedMaxRuns(runsAfter(replaced, takeBack), schedule.maxRuns);
    // With `max_runs`, after the fires the replaced definition still counts (also when a retried call
    // finds nothing to take back): none is dispatched and counted twice.
    const firstFire =
      replaced && schedule.maxRuns !== null
        ? nextFireAfterChange(schedule.trigger, context.now, lastCountedAfter(replaced, takeBack))
        : nextFireAt;
    try {
      const added = await scheduleStore.addSchedule({
        schedule,
        nextFireAt: finishedFromStart ? null : firstFire,
        conflictPolicy,
        now: context.now,
        ...(takeBack && { takeBack }),
        ...(noted && { noted }),
      });
      if (replaced && added.status === 'replaced') {
        added.schedule = await settleTakeBack(context, added.schedule, replaced, takeBack);
      }
      return { replaced, finishedFromStart, added };
    } catch (error) {
      if (!(error instanceof ScheduleMovedError) || attempt >= MOVED_ATTEMPTS) throw error;
    }
  }
}

export const getSchedule: ActionHandler<'get_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  const schedule = await readWithLiveNote(context, params.id);
  if (!schedule) throw new ScheduleNotFoundError(params.id);
  return { schedule: wireSchedule(schedule) };
};

/** `list_schedules`: one page, ordered by id; pass `cursor` back for the next. */
export const listSchedules: ActionHandler<'list_schedules'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const { params } = check.valid({ params: check.params(listSchedulesParams, raw) });
  const page = await context.deps.scheduleStore.listSchedules(
    {
      ...(params.task !== undefined && { task: params.task }),
      ...(params.tag !== undefined && { tag: params.tag }),
      ...(params.paused !== undefined && { paused: params.paused }),
      ...(params.metadata !== undefined && { metadata: params.metadata }),
    },
    { limit: params.limit, ...(params.cursor !== undefined && { cursor: params.cursor }) },
  );
  // Those on due notes answer from their live notes, looked up bucket by bucket for the whole page.
  const schedules = await withLiveNotes(context, page.items);
  return { schedules: schedules.map(wireSchedule), cursor: page.cursor ?? null };
};

/** `pause_schedule`: no fire time is dispatched until it is resumed. Idempotent. */
export const pauseSchedule: ActionHandler<'pause_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  const { scheduleStore } = context.deps;
  for (let attempt = 1; ; attempt++) {
    const before = await readWithLiveNote(context, params.id);
    // The fires it sent ahead are cancelled when they come up: they leave `runs` (ADR 0004).
    const takeBack = before && !before.paused ? takeBackOf(before, context) : undefined;
    const noted = before && notedStateOf(before);
    try {
      const paused = await scheduleStore.pauseSchedule(params.id, context.now, takeBack, noted);
      const schedule = before ? await settleTakeBack(context, paused, before, takeBack) : paused;
      return await pausedNow(context, schedule, before);
    } catch (error) {
      if (!(error instanceof ScheduleMovedError) || attempt >= MOVED_ATTEMPTS) throw error;
    }
  }
};

async function pausedNow(context: ActionContext, schedule: Schedule, before: Schedule | undefined) {
  // Pausing a paused schedule changes nothing (and is no event).
  if (before && !before.paused) {
    await publishAfterWrite(context, [scheduleEventNow(context, 'schedule.paused', schedule)]);
  }
  return { schedule: wireSchedule(schedule) };
}

/** `remove_schedule`: deletes it; its jobs and results stay until they expire. */
export const removeSchedule: ActionHandler<'remove_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  // Read first, for the event: the store's delete answers only whether there was a schedule.
  const before = await readWithLiveNote(context, params.id);
  const removed = await context.deps.scheduleStore.removeSchedule(params.id);
  if (!removed) throw new ScheduleNotFoundError(params.id);
  if (before) {
    await publishAfterWrite(context, [scheduleEventNow(context, 'schedule.removed', before, 'removed')]);
  }
  return { id: params.id, removed: true };
};

/** `schedule.finished` when an admin call's own dispatch finished the schedule. */
export function finishedEvents(context: ActionContext, dispatch: DispatchNowOutcome) {
  return dispatch.finished ? [scheduleEventNow(context, 'schedule.finished', dispatch.finished)] : [];
}

export function validIdParams(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  return check.valid({ params: check.params(scheduleIdParams, raw) });
}
