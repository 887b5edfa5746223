import type { EpochMs } from '../../../core/clock';
import type { Job } from '../../../core/model/job';
import { parseFireJobId, scheduleJobId } from '../../../core/model/job-id';
import { scheduleJobExtras } from '../../../core/model/job-messages';
import type { Schedule } from '../../../core/model/schedule';
import { compileTrigger } from '../../../core/triggers';
import { resultTtlSecondsOf, TASK_DEFAULTS } from '../../tasks/define-task';
import type { ActionContext } from '../context';
import { readWithLiveNote } from './live-notes';

/**
 * A fire the tick sent to the queue exists only as a message until a worker claims it: writing a job
 * record at dispatch would cost a write per fire. Its job is shown from the schedule instead, as
 * `queued`: one of the current trigger's fire times from `firesFrom` up to `lastFireAt` (the latest
 * dispatched), of a schedule that is not paused (the fires of a paused one are cancelled when they come
 * up), without a job record. Older fire times than a recent range are left out: their messages have
 * been handled, and a fire skipped by the coalesce policy must not linger as queued.
 */

/** How long a fire without a job record may still be on its way to a worker (plus the schedule's jitter). */
const RECENT_MS = 60_000;

/** At most this many dispatched fires of one schedule are shown (a 900 s window of a per-second schedule fits). */
export const MAX_DISPATCHED_FIRES = 1_000;

/** The fire times that may be dispatched and not started, as `[from, to]`; undefined when there are none. */
function dispatchedRange(
  schedule: Schedule,
  now: EpochMs,
  context: ActionContext,
): { from: EpochMs; to: EpochMs } | undefined {
  if (schedule.paused || schedule.lastFireAt === null) return undefined;
  // Never further back than the task's result TTL: a fire that ran has a record at least that long.
  const lookback = Math.min(
    RECENT_MS + schedule.maxJitterSeconds * 1000,
    resultTtlMsOf(schedule.task, context),
  );
  const from = Math.max(schedule.firesFrom, now - lookback);
  return from <= schedule.lastFireAt ? { from, to: schedule.lastFireAt } : undefined;
}

export function resultTtlMsOf(taskId: string, context: ActionContext): number {
  const defaultSeconds = context.deps.defaultResultTtlSeconds ?? TASK_DEFAULTS.resultTtlSeconds;
  return resultTtlSecondsOf(context.deps.tasks.get(taskId)?.definition, defaultSeconds) * 1000;
}

/**
 * The dispatched fire times before `before`, newest first, at most `MAX_DISPATCHED_FIRES` (whether a
 * job record exists for them is the caller's to check).
 */
export function dispatchedFireTimes(schedule: Schedule, context: ActionContext, before: EpochMs): EpochMs[] {
  const range = dispatchedRange(schedule, context.now, context);
  if (!range) return [];
  const source = compileTrigger(schedule.trigger);
  const times: EpochMs[] = [];
  const until = Math.min(range.to, before - 1);
  for (
    let time = source.next(range.from);
    time !== undefined && time <= until;
    time = source.next(time + 1)
  ) {
    times.push(time);
  }
  return times.slice(-MAX_DISPATCHED_FIRES).reverse();
}

/** The job of `jobId` when it names a dispatched fire without a job record (checked by the caller). */
export async function dispatchedFireJob(jobId: string, context: ActionContext): Promise<Job | undefined> {
  const fire = parseFireJobId(jobId);
  if (!fire) return undefined;
  const { scheduleId, fireTime } = fire;
  // The fires dispatched run to the live note's last fire of a schedule on due notes (ADR 0007).
  const schedule = await readWithLiveNote(context, scheduleId);
  if (!schedule) return undefined;
  const range = dispatchedRange(schedule, context.now, context);
  const dispatched =
    range !== undefined &&
    fireTime >= range.from &&
    fireTime <= range.to &&
    compileTrigger(schedule.trigger).next(fireTime) === fireTime;
  return dispatched ? queuedFireJob(schedule, fireTime, context.now) : undefined;
}

/**
 * A dispatched fire's job as it will run: the schedule's current task and payload (a fire sent under an
 * earlier revision runs as the current one). Its jitter is not recorded: `runAt` is the fire time.
 */
export function queuedFireJob(schedule: Schedule, fireTime: EpochMs, now: EpochMs): Job {
  const grace = schedule.misfireGraceSeconds;
  return {
    id: scheduleJobId(schedule.id, fireTime),
    task: schedule.task,
    payload: schedule.payload,
    origin: 'schedule',
    scheduleId: schedule.id,
    fireTime,
    runAt: fireTime,
    startDeadline: grace === null ? null : fireTime + grace * 1000,
    ...scheduleJobExtras(schedule),
    attempt: 0,
    status: 'queued',
    leaseOwner: null,
    leaseUntil: null,
    holdsSlot: false,
    createdAt: Math.min(now, fireTime),
    startedAt: null,
    finishedAt: null,
    result: null,
    expiresAt: null,
  };
}
