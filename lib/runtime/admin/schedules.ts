import { ScheduleNotFoundError } from '../../core/errors';
import type { JsonValue } from '../../core/json';
import type { ScheduleDefinition } from '../../core/model/schedule';
import type { ActionContext } from './context';
import { dispatchIfInsideWindow } from './dispatch-now';
import { InputCheck } from './input-check';
import { addScheduleParams, listSchedulesParams, scheduleIdParams } from './schemas';
import { wireSchedule } from './wire';

/** What a schedule's payload is when the caller gives none. */
export const DEFAULT_PAYLOAD: JsonValue = {};

/**
 * `add_schedule`: stores a schedule and, when its first fire time is inside the lookahead window,
 * dispatches it at once. Defaults: a generated id, payload `{}`, coalesce `latest`, the task's
 * misfire grace (stored on the schedule), no jitter, no tags, conflict policy `exception`.
 */
export async function addSchedule(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  const parsed = check.params(addScheduleParams, raw);
  const resolved = check.trigger(raw.trigger, 'trigger', context.now);
  const task = check.task(raw.task);
  check.payload(task, InputCheck.payloadToCheck(raw.payload, DEFAULT_PAYLOAD));
  const { params, trigger, registered } = check.valid({
    params: parsed,
    trigger: resolved,
    registered: task,
  });

  const definition: ScheduleDefinition = {
    id: params.id ?? context.newId(),
    task: registered.id,
    trigger: trigger.trigger,
    payload: params.payload ?? DEFAULT_PAYLOAD,
    coalesce: params.coalesce ?? 'latest',
    misfireGraceSeconds:
      params.misfire_grace_seconds === undefined
        ? registered.definition.misfireGraceSeconds
        : params.misfire_grace_seconds,
    maxJitterSeconds: params.max_jitter_seconds ?? 0,
    tags: params.tags ?? [],
    paused: params.paused ?? false,
  };
  const added = await context.deps.scheduleStore.addSchedule({
    schedule: definition,
    nextFireAt: trigger.nextFireAt,
    conflictPolicy: params.conflict_policy ?? 'exception',
    now: context.now,
  });
  const dispatch =
    added.status === 'kept'
      ? { schedule: added.schedule, jobsSent: 0 }
      : await dispatchIfInsideWindow(context, added.schedule);
  return {
    status: added.status,
    dispatched_jobs: dispatch.jobsSent,
    schedule: wireSchedule(dispatch.schedule),
  };
}

export async function getSchedule(raw: Record<string, unknown>, context: ActionContext) {
  const { params } = validIdParams(raw, context);
  const schedule = await context.deps.scheduleStore.getSchedule(params.id);
  if (!schedule) throw new ScheduleNotFoundError(params.id);
  return { schedule: wireSchedule(schedule) };
}

/** `list_schedules`: one page, ordered by id; pass `cursor` back for the next. */
export async function listSchedules(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  const { params } = check.valid({ params: check.params(listSchedulesParams, raw) });
  const page = await context.deps.scheduleStore.listSchedules(
    {
      ...(params.task !== undefined && { task: params.task }),
      ...(params.tag !== undefined && { tag: params.tag }),
      ...(params.paused !== undefined && { paused: params.paused }),
    },
    { limit: params.limit, ...(params.cursor !== undefined && { cursor: params.cursor }) },
  );
  return { schedules: page.items.map(wireSchedule), cursor: page.cursor ?? null };
}

/** `pause_schedule`: no fire time is dispatched until it is resumed. Idempotent. */
export async function pauseSchedule(raw: Record<string, unknown>, context: ActionContext) {
  const { params } = validIdParams(raw, context);
  const schedule = await context.deps.scheduleStore.pauseSchedule(params.id, context.now);
  return { schedule: wireSchedule(schedule) };
}

/** `remove_schedule`: deletes it; its jobs and results stay until they expire. */
export async function removeSchedule(raw: Record<string, unknown>, context: ActionContext) {
  const { params } = validIdParams(raw, context);
  const removed = await context.deps.scheduleStore.removeSchedule(params.id);
  if (!removed) throw new ScheduleNotFoundError(params.id);
  return { id: params.id, removed: true };
}

export function validIdParams(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  return check.valid({ params: check.params(scheduleIdParams, raw) });
}
