import type { JsonValue } from './json';
import type { JobOrigin, JobStatus, ResultOutcome } from './model/job';
import type { CoalescePolicy } from './model/schedule';
import type { TriggerSpec } from './triggers';

/**
 * The records of the admin API as they travel on the wire (docs/admin-api.md): snake_case fields,
 * ISO-8601 times, durations in seconds. The admin handler writes them; the CLI and the dashboard read
 * them. Defined once here so the three cannot drift apart.
 */

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
