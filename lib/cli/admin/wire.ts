import type { TriggerSpec } from '../../core/triggers';

/**
 * The records of the admin API as they arrive on the wire (docs/admin-api.md). The CLI reads them
 * only; they mirror `lib/runtime/admin/wire.ts`, which the CLI may not import (DESIGN.md §3).
 */

export interface WireSchedule {
  id: string;
  task: string;
  trigger: TriggerSpec;
  payload: unknown;
  coalesce: string;
  misfire_grace_seconds: number | null;
  max_jitter_seconds: number;
  tags: string[];
  paused: boolean;
  timezone: string;
  next_fire_time: string | null;
  next_fire_time_local: string | null;
  last_fire_time: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface WireJobResult {
  outcome: string;
  return_value?: unknown;
  error?: { type: string; message: string; stack?: string };
  started_at: string | null;
  finished_at: string;
  duration_seconds: number | null;
  attempt: number;
}

export interface WireJob {
  id: string;
  task: string;
  payload: unknown;
  origin: string;
  schedule_id: string | null;
  fire_time: string | null;
  run_at: string;
  start_deadline: string | null;
  attempt: number;
  status: string;
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
  running: number;
}

export interface WireFireTime {
  utc: string;
  local: string;
}

export interface SchedulePage {
  schedules: WireSchedule[];
  cursor: string | null;
}

export interface JobPage {
  jobs: WireJob[];
  cursor: string | null;
}
