import type { EpochMs } from '../clock';
import type { PlannedFire } from '../planning';
import { type JobMessage, queueDelaySeconds } from '../ports/job-queue';
import type { JobRequest } from '../ports/job-store';
import type { Job } from './job';
import { jobRequestFields } from './job-message';
import type { Schedule } from './schedule';
import { fireRevisionOf } from './schedule-revision';

/** The request part of a stored job (what a queue message carries). */
export function jobRequestOf(job: JobRequest): JobRequest {
  return jobRequestFields(job);
}

/**
 * The message for another attempt of a job, to start at `runAt`. A retry has no start deadline: the
 * misfire grace is about starting a fire late, not about retrying one that started in time.
 */
export function retryMessage(job: JobRequest, nextAttempt: number, runAt: EpochMs, now: EpochMs): JobMessage {
  return {
    job: { ...jobRequestOf(job), runAt, startDeadline: null },
    attempt: nextAttempt,
    delaySeconds: queueDelaySeconds(runAt, now),
  };
}

/** The message for a job that waited in the due index (queued far ahead, or a retry far ahead). */
export function parkedJobMessage(job: Job, now: EpochMs): JobMessage {
  if (job.status === 'retrying') return retryMessage(job, job.attempt + 1, job.runAt, now);
  return {
    job: jobRequestOf(job),
    attempt: job.attempt + 1,
    delaySeconds: queueDelaySeconds(job.runAt, now),
  };
}

/**
 * The message for one fire of a schedule, with the schedule's task and payload as they are now and the
 * revision they belong to (the worker checks it against the schedule before it runs the job).
 */
export function scheduleFireMessage(schedule: Schedule, fire: PlannedFire, now: EpochMs): JobMessage {
  return {
    job: {
      id: fire.jobId,
      task: schedule.task,
      payload: schedule.payload,
      origin: 'schedule',
      scheduleId: schedule.id,
      fireTime: fire.fireTime,
      runAt: fire.runAt,
      startDeadline: fire.startDeadline,
      ...scheduleJobExtras(schedule),
    },
    attempt: 1,
    revision: fireRevisionOf(schedule),
    delaySeconds: queueDelaySeconds(fire.runAt, now),
  };
}

/** What each job of a schedule carries from it: its run-setting overrides, metadata and priority. */
export function scheduleJobExtras(
  schedule: Schedule,
): Pick<JobRequest, 'overrides' | 'metadata' | 'priority'> {
  return {
    ...(schedule.overrides && { overrides: schedule.overrides }),
    ...(schedule.metadata && { metadata: schedule.metadata }),
    ...(schedule.priority === 'critical' && { priority: schedule.priority }),
  };
}
