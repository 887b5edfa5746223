import { DEFAULT_PAYLOAD, scheduleOfRequest, wireSchedule } from '../../../core/admin-contract';
import {
  addScheduleParams,
  listSchedulesParams,
  scheduleIdParams,
} from '../../../core/admin-contract/schedules';
import { ScheduleMovedError, ScheduleNotFoundError } from '../../../core/errors';
import type { ScheduleDefinition } from '../../../core/model/schedule';
import { type ConflictPolicy, isFinished, type Schedule } from '../../../core/model/schedule';
import type { PlannedChain } from '../../dispatch/chain-start';
import type { ActionContext, ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';
import { checkTimeoutOverride } from '../validation/timeout-override';
import { chainPosition, runsSoFar } from './chain-positions';
import { cleanUpIfFinished, publishAfterWrite, scheduleEventNow } from './lifecycle-events';
import { readWithLiveNote, withLiveNote, withLiveNotes } from './live-notes';
import { checkDefinitionOwner } from './ownership';
import { dryRunAddSchedule } from './schedule-dry-run';

/** How often a change reads again a schedule that changed between its read and its write. */
const MOVED_ATTEMPTS = 5;

/** What an admin call's own start of a schedule's chain did (its first fires, when they came too soon). */
export interface DispatchNowOutcome {
  schedule: Schedule;
  /** Jobs this call sent for the schedule's first fires. */
  jobsSent: number;
  /** Set when the call's own dispatch finished the schedule (it had no fire time left after these). */
  finished?: Schedule;
}

/**
 * `add_schedule`: stores a schedule and, when its first fire time is inside the lookahead window,
 * dispatches it at once. Defaults: a generated id, the rest as `scheduleOfRequest` fills them in,
 * conflict policy `exception`. With `dry_run`, the same checks and answer, and nothing written.
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

  const schedule = {
    ...scheduleOfRequest(params, {
      id: params.id ?? context.newId(),
      trigger: trigger.trigger,
      taskMisfireGraceSeconds: registered.definition.misfireGraceSeconds,
    }),
    ...(context.management && { managedBy: context.management }),
  };
  const conflictPolicy = params.conflict_policy ?? 'exception';
  if (params.dry_run) return dryRunAddSchedule(context, schedule, conflictPolicy);
  const { replaced, added, chain } = await writeSchedule(context, schedule, conflictPolicy);
  const dispatch =
    added.status === 'kept'
      ? { schedule: await withLiveNote(context, added.schedule), jobsSent: 0 }
      : await continueChain(context, added.schedule, chain);
  if (added.status !== 'kept') {
    const finishedFromStart = isFinished(added.schedule) && dispatch.finished === undefined;
    await publishAfterWrite(context, [
      scheduleEventNow(
        context,
        added.status === 'added' ? 'schedule.added' : 'schedule.updated',
        added.schedule,
      ),
      ...finishedEvents(context, dispatch),
      ...(finishedFromStart
        ? [
            ...(replaced && !isFinished(replaced)
              ? [scheduleEventNow(context, 'schedule.finished', added.schedule)]
              : []),
            ...(await cleanUpIfFinished(context, added.schedule.id, null)),
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
 * Adds (or replaces) the schedule with its chain's first note (ADR 0008). A replace keeps the schedule's
 * runs (ADR 0004), less the fires the replaced definition sent ahead (they are cancelled): at its
 * `max_runs` already, it is finished from the start.
 */
async function writeSchedule(
  context: ActionContext,
  schedule: ScheduleDefinition,
  conflictPolicy: ConflictPolicy,
) {
  const { scheduleStore } = context.deps;
  const replaced = conflictPolicy === 'replace' ? await readWithLiveNote(context, schedule.id) : undefined;
  checkDefinitionOwner(context, replaced);
  const { position, startedRuns } = chainPosition(schedule, context.now, replaced, context.now);
  const chain = schedule.paused
    ? undefined
    : await context.chains.plan(schedule, position, context.requestId);
  const added = await scheduleStore.addSchedule({
    schedule,
    position,
    ...(chain && { start: chain.start }),
    ...(startedRuns !== undefined && { startedRuns }),
    conflictPolicy,
    now: context.now,
  });
  return { replaced, added, chain };
}

/**
 * After a write that started the schedule's chain: sends its first fires itself when they come too
 * soon for the tick (`ChainStarter.continueAfterWrite`), and answers the schedule as it is now. A failure
 * there is logged: the chain's first note stands, and the tick sends what is missing.
 */
export async function continueChain(
  context: ActionContext,
  schedule: Schedule,
  chain: PlannedChain | undefined,
): Promise<DispatchNowOutcome> {
  if (!chain || schedule.chain !== chain.start.chain) {
    // Its chain goes on (or it has none): it answers as its live note has it.
    return { schedule: await withLiveNote(context, schedule), jobsSent: 0 };
  }
  const { logger } = context.deps;
  try {
    const outcome = await context.chains.continueAfterWrite(chain, {
      warn: (message, fields) => logger.warn(message, { requestId: context.requestId, ...fields }),
      error: (message, fields) => logger.error(message, { requestId: context.requestId, ...fields }),
    });
    if (outcome.jobsSent === 0 && !outcome.finished) return { schedule, jobsSent: 0 };
    // The fires are sent either way; a failed read only leaves the answer showing the state before them.
    const read = await context.deps.scheduleStore.getSchedule(schedule.id).catch(() => undefined);
    return { schedule: read ? await withLiveNote(context, read) : schedule, ...outcome };
  } catch (error) {
    logger.warn('could not send the first fires at once; the tick sends them', {
      requestId: context.requestId,
      scheduleId: schedule.id,
      error,
    });
    return { schedule, jobsSent: 0 };
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

/**
 * `pause_schedule`: no fire time is dispatched until it is resumed; its chain ends. It keeps where it
 * stood (its live note's next fire time), and the fires it sent ahead are cancelled when they come up:
 * they leave `runs` (ADR 0004). Idempotent.
 */
export const pauseSchedule: ActionHandler<'pause_schedule'> = async (raw, context) => {
  const { params } = validIdParams(raw, context);
  for (let attempt = 1; ; attempt++) {
    const before = await readWithLiveNote(context, params.id);
    if (!before) throw new ScheduleNotFoundError(params.id);
    if (before.paused) return { schedule: wireSchedule(before) };
    const { startedRuns: _, ...ran } = runsSoFar(before, context.now, before.maxRuns !== null);
    try {
      const schedule = await context.deps.scheduleStore.pauseSchedule({
        id: params.id,
        now: context.now,
        position: { ...ran, nextFireAt: before.nextFireAt },
        seenVersion: before.version,
      });
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
  checkDefinitionOwner(context, before);
  const removed = await context.deps.scheduleStore.removeSchedule(params.id);
  if (!removed) throw new ScheduleNotFoundError(params.id);
  if (before) {
    await publishAfterWrite(context, [scheduleEventNow(context, 'schedule.removed', before, 'removed')]);
  }
  return { id: params.id, removed: true };
};

/** `schedule.finished` when an admin call's own dispatch finished the schedule. */
export function finishedEvents(context: ActionContext, dispatch: Pick<DispatchNowOutcome, 'finished'>) {
  return dispatch.finished ? [scheduleEventNow(context, 'schedule.finished', dispatch.finished)] : [];
}

export function validIdParams(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  return check.valid({ params: check.params(scheduleIdParams, raw) });
}
