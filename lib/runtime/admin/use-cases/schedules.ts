import { DEFAULT_PAYLOAD, scheduleOfRequest, wireSchedule } from '../../../core/admin-contract';
import {
  addScheduleParams,
  listSchedulesParams,
  scheduleIdParams,
} from '../../../core/admin-contract/schedules';
import { ScheduleNotFoundError } from '../../../core/errors';
import { isFinished, reachedMaxRuns } from '../../../core/model/schedule';
import type { ActionContext, ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';
import { checkTimeoutOverride } from '../validation/timeout-override';
import { type DispatchNowOutcome, dispatchIfInsideWindow } from './dispatch-now';
import { cleanUpIfFinished, publishAfterWrite, scheduleEventNow } from './lifecycle-events';

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
  // A replace keeps the schedule's runs (ADR 0004): at its max_runs already, it is finished from the start
  const replaced =
    conflictPolicy === 'replace' ? await context.deps.scheduleStore.getSchedule(schedule.id) : undefined;
  const finishedFromStart = replaced !== undefined && reachedMaxRuns(replaced.runs, schedule.maxRuns);
  const added = await context.deps.scheduleStore.addSchedule({
    schedule,
    nextFireAt: finishedFromStart ? null : trigger.nextFireAt,
    conflictPolicy,
    now: context.now,
  });
  const dispatch =
    added.status === 'kept'
      ? { schedule: added.schedule, jobsSent: 0 }
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

export const getSchedule: ActionHandler<'get_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  const schedule = await context.deps.scheduleStore.getSchedule(params.id);
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
  return { schedules: page.items.map(wireSchedule), cursor: page.cursor ?? null };
};

/** `pause_schedule`: no fire time is dispatched until it is resumed. Idempotent. */
export const pauseSchedule: ActionHandler<'pause_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  const before = await context.deps.scheduleStore.getSchedule(params.id);
  const schedule = await context.deps.scheduleStore.pauseSchedule(params.id, context.now);
  // Pausing a paused schedule changes nothing (and is no event).
  if (before && !before.paused) {
    await publishAfterWrite(context, [scheduleEventNow(context, 'schedule.paused', schedule)]);
  }
  return { schedule: wireSchedule(schedule) };
};

/** `remove_schedule`: deletes it; its jobs and results stay until they expire. */
export const removeSchedule: ActionHandler<'remove_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  // Read first, for the event: the store's delete answers only whether there was a schedule.
  const before = await context.deps.scheduleStore.getSchedule(params.id);
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
