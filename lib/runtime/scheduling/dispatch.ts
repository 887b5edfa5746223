import type { Clock, EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { Schedule } from '../../core/model/schedule';
import { type PlanLimits, type PlannedFire, planFires } from '../../core/planning';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';
import type { ReleaseOutcome, ScheduleStore } from '../../core/ports/schedule-store';
import { compileTrigger } from '../../core/triggers';
import { scheduleFireMessage } from './job-messages';

export interface DispatchDeps {
  scheduleStore: ScheduleStore;
  queue: JobQueue;
  clock: Clock;
  random: () => number;
  limits: PlanLimits;
}

export interface DispatchSummary {
  scheduleId: string;
  jobsSent: number;
  sendFailures: number;
  /** `lease_lost` also for a lease-less advance that another tick's write beat (ADR 0005). */
  release: ReleaseOutcome | 'lease_lost';
  /** Where the schedule resumes (as released); null when its trigger has finished. */
  nextFireAt: EpochMs | null;
  /** For each fire sent after its start time: how late it was sent (ms). */
  fireLagMs: number[];
}

/**
 * Plans a schedule leased by `owner`, sends its jobs (DelaySeconds = floor of the delay),
 * and releases it.
 *
 * Nothing is lost and nothing runs twice: each fire's job id is deterministic, so a fire sent again
 * (after a crash between send and release, or after a partial send failure) is dropped when a worker
 * claims it. When some messages fail, the schedule resumes from the earliest unsent fire time; when
 * the process dies before the release, the lease expires and the next tick re-plans from the stored
 * next fire time.
 */
export async function dispatchLeasedSchedule(
  deps: DispatchDeps,
  schedule: Schedule,
  owner: string,
): Promise<DispatchSummary> {
  const planned = planDispatch(deps, schedule);
  const failed = new Set(await sendOrReportAllFailed(deps.queue, planned.messages));
  return releaseDispatched(deps, planned, failed, owner);
}

/** One planned schedule: what to send now and where it resumes. */
export interface PlannedDispatch {
  schedule: Schedule;
  fires: PlannedFire[];
  messages: JobMessage[];
  nextFireAt: EpochMs | null;
  lastFireAt: EpochMs | null;
  plannedAt: EpochMs;
}

/** Plans the fires of a leased schedule (pure: nothing is sent or written). */
export function planDispatch(
  deps: Pick<DispatchDeps, 'clock' | 'random' | 'limits'>,
  schedule: Schedule,
): PlannedDispatch {
  const now = deps.clock.now();
  const plan =
    schedule.nextFireAt === null
      ? { fires: [], nextFireAt: null, lastFireAt: null }
      : planFires({
          scheduleId: schedule.id,
          source: compileTrigger(schedule.trigger),
          nextFireAt: schedule.nextFireAt,
          policies: {
            coalesce: schedule.coalesce,
            misfireGraceSeconds: schedule.misfireGraceSeconds,
            maxJitterSeconds: schedule.maxJitterSeconds,
          },
          limits: deps.limits,
          now,
          random: deps.random,
        });
  return {
    schedule,
    fires: plan.fires,
    messages: plan.fires.map((fire) => scheduleFireMessage(schedule, fire, now)),
    nextFireAt: plan.nextFireAt,
    lastFireAt: plan.lastFireAt,
    plannedAt: now,
  };
}

/**
 * Releases a planned schedule once its messages were sent (`failed`: the job ids that were not): it
 * resumes at its first unsent fire, or where the plan ends when everything was sent.
 */
export async function releaseDispatched(
  deps: Pick<DispatchDeps, 'scheduleStore' | 'clock'>,
  planned: PlannedDispatch,
  failed: ReadonlySet<string>,
  owner: string,
): Promise<DispatchSummary> {
  const { schedule } = planned;
  const { nextFireAt, lastFireAt } = resumePoint(planned, failed);
  let release: DispatchSummary['release'];
  try {
    release = await deps.scheduleStore.releaseSchedule({
      id: schedule.id,
      owner,
      leasedVersion: schedule.version,
      nextFireAt,
      lastFireAt,
      now: deps.clock.now(),
    });
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    release = 'lease_lost';
  }
  return dispatchSummary(planned, failed, release, nextFireAt);
}

/** Where a sent plan resumes: at its first unsent fire, or where the plan ends when everything was sent. */
export function resumePoint(
  planned: PlannedDispatch,
  failed: ReadonlySet<string>,
): { nextFireAt: EpochMs | null; lastFireAt: EpochMs | null } {
  const { fires } = planned;
  const firstUnsent = fires.find((fire) => failed.has(fire.jobId));
  if (!firstUnsent) return { nextFireAt: planned.nextFireAt, lastFireAt: planned.lastFireAt };
  const sentBeforeGap = fires.filter((fire) => fire.fireTime < firstUnsent.fireTime);
  return { nextFireAt: firstUnsent.fireTime, lastFireAt: sentBeforeGap.at(-1)?.fireTime ?? null };
}

export function dispatchSummary(
  planned: PlannedDispatch,
  failed: ReadonlySet<string>,
  release: DispatchSummary['release'],
  nextFireAt: EpochMs | null,
): DispatchSummary {
  const { fires, plannedAt } = planned;
  const sent = fires.filter((fire) => !failed.has(fire.jobId));
  return {
    scheduleId: planned.schedule.id,
    jobsSent: sent.length,
    sendFailures: fires.length - sent.length,
    release,
    nextFireAt,
    fireLagMs: sent.filter((fire) => fire.runAt < plannedAt).map((fire) => plannedAt - fire.runAt),
  };
}

/**
 * A queue that throws sent nothing we can count on: report every message as failed so the schedule is
 * released to resume from its first fire (rather than staying leased until the lease expires).
 */
export async function sendOrReportAllFailed(
  queue: JobQueue,
  messages: readonly JobMessage[],
): Promise<string[]> {
  if (messages.length === 0) return [];
  try {
    return (await queue.send(messages)).failed;
  } catch {
    return messages.map((message) => message.job.id);
  }
}
