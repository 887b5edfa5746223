import type { WireJob, WireJobResult, WireSchedule, WireTask } from '../../core/admin-wire';
import type { EpochMs } from '../../core/clock';
import { isoInZone, isoUtc } from '../../core/instants';
import type { Job, JobResult } from '../../core/model/job';
import type { Schedule } from '../../core/model/schedule';
import { triggerTimezone } from '../../core/triggers';
import { resultTtlSecondsOf } from '../tasks/define-task';
import type { RegisteredTask } from './deps';

/** Instants and records as they appear on the wire: snake_case fields, ISO-8601 times, seconds. */

export type { WireJob, WireJobResult, WireSchedule, WireTask };

function isoOrNull(instant: EpochMs | null): string | null {
  return instant === null ? null : isoUtc(instant);
}

export function wireSchedule(schedule: Schedule): WireSchedule {
  const timezone = triggerTimezone(schedule.trigger);
  return {
    id: schedule.id,
    task: schedule.task,
    trigger: schedule.trigger,
    payload: schedule.payload,
    coalesce: schedule.coalesce,
    misfire_grace_seconds: schedule.misfireGraceSeconds,
    max_jitter_seconds: schedule.maxJitterSeconds,
    tags: schedule.tags,
    paused: schedule.paused,
    timezone,
    next_fire_time: isoOrNull(schedule.nextFireAt),
    next_fire_time_local: schedule.nextFireAt === null ? null : isoInZone(schedule.nextFireAt, timezone),
    last_fire_time: isoOrNull(schedule.lastFireAt),
    version: schedule.version,
    created_at: isoUtc(schedule.createdAt),
    updated_at: isoUtc(schedule.updatedAt),
  };
}

export function wireJobResult(result: JobResult): WireJobResult {
  return {
    outcome: result.outcome,
    ...(result.returnValue !== undefined && { return_value: result.returnValue }),
    ...(result.error !== undefined && { error: result.error }),
    started_at: isoOrNull(result.startedAt),
    finished_at: isoUtc(result.finishedAt),
    duration_seconds: result.startedAt === null ? null : (result.finishedAt - result.startedAt) / 1000,
    attempt: result.attempt,
  };
}

export function wireJob(job: Job): WireJob {
  return {
    id: job.id,
    task: job.task,
    payload: job.payload,
    origin: job.origin,
    schedule_id: job.scheduleId,
    fire_time: isoOrNull(job.fireTime),
    run_at: isoUtc(job.runAt),
    start_deadline: isoOrNull(job.startDeadline),
    attempt: job.attempt,
    status: job.status,
    created_at: isoUtc(job.createdAt),
    started_at: isoOrNull(job.startedAt),
    finished_at: isoOrNull(job.finishedAt),
    expires_at: isoOrNull(job.expiresAt),
    result: job.result === null ? null : wireJobResult(job.result),
  };
}

/** A task as the admin API shows it; `defaultResultTtlSeconds` fills in a task that sets none. */
export function wireTask(task: RegisteredTask, running: number, defaultResultTtlSeconds: number): WireTask {
  const { definition } = task;
  return {
    id: task.id,
    max_running_jobs: definition.maxRunningJobs,
    misfire_grace_seconds: definition.misfireGraceSeconds,
    timeout_seconds: definition.timeoutSeconds,
    retry: {
      max_attempts: definition.retry.maxAttempts,
      backoff_seconds: definition.retry.backoffSeconds,
      max_backoff_seconds: definition.retry.maxBackoffSeconds,
    },
    result_ttl_seconds: resultTtlSecondsOf(definition, defaultResultTtlSeconds),
    events: definition.events,
    has_payload_schema: definition.payloadSchema !== null,
    running,
  };
}
