import type { Clock, EpochMs } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import { isFinished, type Schedule } from '../../core/model/schedule';
import { capAtMaxRuns, type PlanLimits, type PlannedFire, planFires } from '../../core/planning';
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
  /** The schedule as this release left it, when the release finished it: no fire time left (its trigger ended, or it reached `maxRuns`). */
  finished?: Schedule;
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

/**
 * Plans the fires of a leased schedule (pure: nothing is sent or written), at most the `maxRuns - runs`
 * it has left. The last fire of a plan that finishes the schedule is sent marked `finalFire`.
 */
export function planDispatch(
  deps: Pick<DispatchDeps, 'clock' | 'random' | 'limits'>,
  schedule: Schedule,
): PlannedDispatch {
  const now = deps.clock.now();
  const uncapped =
    schedule.nextFireAt === null
      ? { fires: [], nextFireAt: null, lastFireAt: null, coalesced: false }
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
  const plan = capAtMaxRuns(uncapped, schedule.runs, schedule.maxRuns);
  const finalFire = plan.nextFireAt === null ? plan.fires.at(-1) : undefined;
  return {
    schedule,
    fires: plan.fires,
    messages: plan.fires.map((fire) => scheduleFireMessage(schedule, fire, now, fire === finalFire)),
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
  const resume = resumePoint(planned, failed);
  let release: DispatchSummary['release'];
  try {
    release = await deps.scheduleStore.releaseSchedule({
      id: schedule.id,
      owner,
      leasedVersion: schedule.version,
      leased: { nextFireAt: schedule.nextFireAt, firesFrom: schedule.firesFrom, maxRuns: schedule.maxRuns },
      ...resume,
      now: deps.clock.now(),
    });
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    release = 'lease_lost';
  }
  // Finished on a schedule its owner changed meanwhile: the event shows it as it is now (best effort,
  // as events are: the release is written whatever this read does)
  const changed =
    release === 'released_changed' && resume.nextFireAt === null
      ? await deps.scheduleStore.getSchedule(schedule.id).catch(() => undefined)
      : undefined;
  return dispatchSummary(planned, failed, release, resume, changed);
}

/**
 * Where a sent plan resumes: at its first unsent fire, or where the plan ends when everything was sent;
 * and how many fires it dispatched before that point (what the write that moves it on adds to `runs`:
 * a fire re-sent after a crash or a partial failure is counted by the write that moves the schedule
 * past it, never twice).
 */
export interface ResumePoint {
  nextFireAt: EpochMs | null;
  lastFireAt: EpochMs | null;
  firesDispatched: number;
}

export function resumePoint(planned: PlannedDispatch, failed: ReadonlySet<string>): ResumePoint {
  const { fires } = planned;
  const firstUnsent = fires.find((fire) => failed.has(fire.jobId));
  if (!firstUnsent) {
    return { nextFireAt: planned.nextFireAt, lastFireAt: planned.lastFireAt, firesDispatched: fires.length };
  }
  const sentBeforeGap = fires.filter((fire) => fire.fireTime < firstUnsent.fireTime);
  return {
    nextFireAt: firstUnsent.fireTime,
    lastFireAt: sentBeforeGap.at(-1)?.fireTime ?? null,
    firesDispatched: sentBeforeGap.length,
  };
}

export function dispatchSummary(
  planned: PlannedDispatch,
  failed: ReadonlySet<string>,
  release: DispatchSummary['release'],
  resume: ResumePoint,
  /** The schedule read again after a `released_changed` release that finished it. */
  changed?: Schedule,
): DispatchSummary {
  const { schedule, fires, plannedAt } = planned;
  const { nextFireAt, lastFireAt, firesDispatched } = resume;
  const sent = fires.filter((fire) => !failed.has(fire.jobId));
  const finished =
    changed !== undefined && isFinished(changed)
      ? changed
      : release === 'released' && nextFireAt === null
        ? {
            ...schedule,
            nextFireAt,
            lastFireAt: lastFireAt ?? schedule.lastFireAt,
            runs: schedule.runs + firesDispatched,
            leaseOwner: null,
            leaseUntil: null,
          }
        : undefined;
  return {
    scheduleId: planned.schedule.id,
    jobsSent: sent.length,
    sendFailures: fires.length - sent.length,
    release,
    nextFireAt,
    ...(finished && { finished }),
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
