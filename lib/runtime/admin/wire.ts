import { DateTime } from 'luxon';
import type { EpochMs } from '../../core/clock';
import type { JsonValue } from '../../core/json';
import type { Job, JobOrigin, JobResult, JobStatus, ResultOutcome } from '../../core/model/job';
import type { CoalescePolicy, Schedule } from '../../core/model/schedule';
import { type TriggerSpec, triggerTimezone } from '../../core/triggers';
import { resultTtlSecondsOf } from '../tasks/define-task';
import type { RegisteredTask } from './deps';

/** Instants and records as they appear on the wire: snake_case fields, ISO-8601 times, seconds. */

/** `2026-03-29T09:00:00Z` (milliseconds only when there are any). */
export function isoUtc(instant: EpochMs): string {
  return DateTime.fromMillis(instant, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? '';
}

/** The same instant as wall-clock time in `timezone`, with its offset: `2026-03-29T11:00:00+02:00`. */
export function isoInZone(instant: EpochMs, timezone: string): string {
  return (
    DateTime.fromMillis(instant, { zone: timezone }).toISO({ suppressMilliseconds: true }) ?? isoUtc(instant)
  );
}

function isoOrNull(instant: EpochMs | null): string | null {
  return instant === null ? null : isoUtc(instant);
}

export interface WireSchedule {
  id: string;
  task: string;
  trigger: TriggerSpec;
  payload: JsonValue;
  coalesce: CoalescePolicy;
  misfire_grace_seconds: number | null;
  max_jitter_seconds: number;
  tags: string[];
  paused: boolean;
  /** The trigger's timezone (UTC unless the trigger names one). */
  timezone: string;
  next_fire_time: string | null;
  /** `next_fire_time` as wall-clock time in `timezone`. */
  next_fire_time_local: string | null;
  last_fire_time: string | null;
  version: number;
  created_at: string;
  updated_at: string;
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

export interface WireJobResult {
  outcome: ResultOutcome;
  return_value?: JsonValue;
  error?: { type: string; message: string; stack?: string };
  started_at: string | null;
  finished_at: string;
  /** Seconds from start to finish; null when the job never started. */
  duration_seconds: number | null;
  attempt: number;
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

export interface WireJob {
  id: string;
  task: string;
  payload: JsonValue;
  origin: JobOrigin;
  schedule_id: string | null;
  fire_time: string | null;
  run_at: string;
  start_deadline: string | null;
  attempt: number;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  result: WireJobResult | null;
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

export interface WireTask {
  id: string;
  max_running_jobs: number | null;
  misfire_grace_seconds: number | null;
  timeout_seconds: number;
  retry: { max_attempts: number; backoff_seconds: number; max_backoff_seconds: number };
  result_ttl_seconds: number;
  events: string;
  has_payload_schema: boolean;
  /** Jobs running now, as counted by the task's counter. */
  running: number;
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
