import type { EpochMs } from '../clock';
import type { JobResult } from '../model/job';
import type { Schedule } from '../model/schedule';

export const JOB_EVENT_TYPES = [
  'job.started',
  'job.succeeded',
  'job.failed',
  'job.retrying',
  'job.missed',
  'job.cancelled',
  'job.abandoned',
] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

export interface JobEvent {
  type: JobEventType;
  jobId: string;
  task: string;
  scheduleId: string | null;
  attempt: number;
  at: EpochMs;
  result?: JobResult;
}

export const SCHEDULE_EVENT_TYPES = [
  'schedule.added',
  'schedule.updated',
  'schedule.paused',
  'schedule.resumed',
  'schedule.removed',
  'schedule.finished',
] as const;
export type ScheduleEventType = (typeof SCHEDULE_EVENT_TYPES)[number];

/** Why a schedule was removed: by `remove_schedule`, or cleaned up after it finished. */
export type RemovalReason = 'removed' | 'finished';

export interface ScheduleEvent {
  type: ScheduleEventType;
  scheduleId: string;
  task: string;
  /** The schedule's version after the change (for `schedule.removed`: the version removed). */
  version: number;
  at: EpochMs;
  paused: boolean;
  /** Fire times dispatched so far. */
  runs: number;
  maxRuns: number | null;
  lastFireAt: EpochMs | null;
  nextFireAt: EpochMs | null;
  /** Only on `schedule.removed`. */
  reason?: RemovalReason;
  /** Only on a change made by the reconcile of schedules declared in code: the deploy that made it. */
  deployment?: string;
}

/** Everything Sundial publishes on the event bus. */
export type SundialEvent = JobEvent | ScheduleEvent;

/** Where events go (EventBridge in AWS, the local log when running locally). */
export interface EventPublisher {
  publish(events: readonly SundialEvent[]): Promise<void>;
}

/** For deployments without an event bus: events go nowhere. */
export const discardingPublisher: EventPublisher = { publish: async () => {} };

/** The event of a schedule as it is after `type` happened to it. */
export function scheduleEvent(
  type: ScheduleEventType,
  schedule: Schedule,
  at: EpochMs,
  reason?: RemovalReason,
): ScheduleEvent {
  return {
    type,
    scheduleId: schedule.id,
    task: schedule.task,
    version: schedule.version,
    at,
    paused: schedule.paused,
    runs: schedule.runs,
    maxRuns: schedule.maxRuns,
    lastFireAt: schedule.lastFireAt,
    nextFireAt: schedule.nextFireAt,
    ...(reason && { reason }),
  };
}

/** The id an event is about: its job's, or its schedule's. */
export function eventSubject(event: SundialEvent): string {
  return 'jobId' in event ? event.jobId : event.scheduleId;
}
