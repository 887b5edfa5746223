import * as z from 'zod';
import { isoInZone, isoUtc } from '../instants';
import type { JsonValue } from '../json';
import type { Priority } from '../model/priority';
import {
  type CoalescePolicy,
  type CodeManagement,
  isFinished,
  type Schedule,
  type ScheduleChanges,
} from '../model/schedule';
import { type TriggerSpec, triggerTimezone } from '../triggers';
import {
  booleanFlag,
  coalesce,
  conflictPolicy,
  cursor,
  identifier,
  instant,
  listLimit,
  maxJitterSeconds,
  misfireGraceSeconds,
  payload,
  tag,
  tags,
  taskId,
  triggerInput,
  wholeNumber,
} from './fields';
import { priority, type WireJob } from './jobs';
import {
  changedOverrides,
  description,
  metadata,
  overrideFields,
  overridesOfParams,
  type WireOverrides,
  wireOverrides,
} from './overrides-and-metadata';

/**
 * The schedule actions of the admin API: what each request takes (strict zod schemas: an unknown
 * field is an error that names it), the schedule record on the wire, and what each action answers.
 * Wire names are snake_case; instants ISO-8601; durations seconds (docs/admin-api.md, "Schedules").
 */

/** The largest `max_runs`. */
export const MAX_RUNS_LIMIT = 1_000_000_000;
const maxRuns = wholeNumber(1, MAX_RUNS_LIMIT);

export const addScheduleParams = z.strictObject({
  id: identifier.optional(),
  task: taskId,
  trigger: triggerInput,
  payload: payload.optional(),
  coalesce: coalesce.optional(),
  misfire_grace_seconds: misfireGraceSeconds.optional(),
  max_jitter_seconds: maxJitterSeconds.optional(),
  tags: tags.optional(),
  paused: booleanFlag.optional(),
  keep_finished: booleanFlag.optional(),
  max_runs: maxRuns.optional(),
  conflict_policy: conflictPolicy.optional(),
  ...overrideFields,
  metadata: metadata.nullable().optional(),
  description: description.nullable().optional(),
  priority: priority.optional(),
  /** Check everything, the id against the stored schedules included, and write nothing. */
  dry_run: booleanFlag.optional(),
});
export type AddScheduleParams = z.output<typeof addScheduleParams>;

export const scheduleIdParams = z.strictObject({ id: identifier });

export const listSchedulesParams = z.strictObject({
  task: taskId.optional(),
  tag: tag.optional(),
  paused: booleanFlag.optional(),
  metadata: metadata.optional(),
  limit: listLimit,
  cursor: cursor.optional(),
});

export const updateScheduleParams = z.strictObject({
  id: identifier,
  task: taskId.optional(),
  trigger: triggerInput.optional(),
  payload: payload.optional(),
  coalesce: coalesce.optional(),
  misfire_grace_seconds: misfireGraceSeconds.optional(),
  max_jitter_seconds: maxJitterSeconds.optional(),
  tags: tags.optional(),
  keep_finished: booleanFlag.optional(),
  max_runs: maxRuns.nullable().optional(),
  ...overrideFields,
  metadata: metadata.nullable().optional(),
  description: description.nullable().optional(),
  priority: priority.nullable().optional(),
  expected_version: wholeNumber(1, Number.MAX_SAFE_INTEGER).optional(),
});
export type UpdateScheduleParams = z.output<typeof updateScheduleParams>;

/** The fields of `update_schedule` that change the schedule: all but `id` and `expected_version`. */
export const SCHEDULE_CHANGE_FIELDS = Object.keys(updateScheduleParams.shape).filter(
  (field) => field !== 'id' && field !== 'expected_version',
) as ReadonlyArray<Exclude<keyof UpdateScheduleParams, 'id' | 'expected_version'>>;

export const resumeScheduleParams = z.strictObject({
  id: identifier,
  replay_missed: booleanFlag.default(false),
});

export const MAX_PREVIEW_COUNT = 1000;

export const previewScheduleParams = z.strictObject({
  id: identifier.optional(),
  trigger: triggerInput.optional(),
  from: instant.optional(),
  count: wholeNumber(1, MAX_PREVIEW_COUNT).default(10),
});

/** What a schedule's payload is when the caller gives none. */
export const DEFAULT_PAYLOAD: JsonValue = {};

/**
 * The schedule an `add_schedule` request describes, with its defaults: payload `{}`, coalesce
 * `latest`, the task's misfire grace, no jitter, no tags, not paused. `id` and `trigger` come checked
 * (a generated id when the caller gave none; the trigger anchored at now).
 */
export function scheduleOfRequest(
  params: AddScheduleParams,
  resolved: { id: string; trigger: TriggerSpec; taskMisfireGraceSeconds: number | null },
) {
  return {
    id: resolved.id,
    task: params.task,
    trigger: resolved.trigger,
    payload: params.payload === undefined ? DEFAULT_PAYLOAD : params.payload,
    coalesce: params.coalesce ?? 'latest',
    misfireGraceSeconds:
      params.misfire_grace_seconds === undefined
        ? resolved.taskMisfireGraceSeconds
        : params.misfire_grace_seconds,
    maxJitterSeconds: params.max_jitter_seconds ?? 0,
    tags: params.tags ?? [],
    paused: params.paused ?? false,
    keepFinished: params.keep_finished ?? false,
    maxRuns: params.max_runs ?? null,
    ...overridesAndMetadataOfRequest(params),
  };
}

/** The overrides, metadata, description and priority an `add_schedule` request gives (absent when none). */
function overridesAndMetadataOfRequest(params: AddScheduleParams) {
  const overrides = overridesOfParams(params);
  const { metadata, description } = params;
  return {
    ...(overrides && { overrides }),
    ...(metadata && Object.keys(metadata).length > 0 && { metadata }),
    ...(description && { description }),
    ...(params.priority === 'critical' && { priority: params.priority }),
  };
}

/** The changes an `update_schedule` request makes (fields it leaves out stay as they are). */
export function scheduleChangesOfRequest(
  params: UpdateScheduleParams,
  trigger?: TriggerSpec,
  current?: Pick<Schedule, 'overrides'>,
): ScheduleChanges {
  const overrides = changedOverrides(current?.overrides, params);
  return {
    ...(overrides !== undefined && { overrides }),
    ...(params.metadata !== undefined && {
      metadata: params.metadata && Object.keys(params.metadata).length > 0 ? params.metadata : null,
    }),
    ...(params.description !== undefined && { description: params.description || null }),
    // `normal` is the default, stored as no priority at all.
    ...(params.priority !== undefined && {
      priority: params.priority === 'critical' ? params.priority : null,
    }),
    ...(params.task !== undefined && { task: params.task }),
    ...(trigger !== undefined && { trigger }),
    ...(params.payload !== undefined && { payload: params.payload }),
    ...(params.coalesce !== undefined && { coalesce: params.coalesce }),
    ...(params.misfire_grace_seconds !== undefined && { misfireGraceSeconds: params.misfire_grace_seconds }),
    ...(params.max_jitter_seconds !== undefined && { maxJitterSeconds: params.max_jitter_seconds }),
    ...(params.tags !== undefined && { tags: params.tags }),
    ...(params.keep_finished !== undefined && { keepFinished: params.keep_finished }),
    ...(params.max_runs !== undefined && { maxRuns: params.max_runs }),
  };
}

/** Who manages a schedule declared in code, on the wire (see `CodeManagement`). */
export interface WireManagement {
  declared_in: string;
  deployment: string;
  fingerprint: string;
  added_in: string;
  added_over: string;
}

/** A schedule as the admin API answers it (its overrides are null where the task's setting applies). */
export interface WireSchedule extends WireOverrides {
  id: string;
  task: string;
  trigger: TriggerSpec;
  payload: JsonValue;
  coalesce: CoalescePolicy;
  misfire_grace_seconds: number | null;
  max_jitter_seconds: number;
  tags: string[];
  paused: boolean;
  metadata: Record<string, string>;
  description: string | null;
  /** Only when `critical` (its jobs carry it); absent: `normal`. */
  priority?: Priority;
  /** Only for a schedule declared in code; absent: managed through the admin API. */
  managed_by?: WireManagement;
  /** The trigger's timezone (UTC unless the trigger names one). */
  timezone: string;
  /** The next fire time not yet dispatched; null when the trigger has finished. */
  next_fire_time: string | null;
  /** `next_fire_time` as wall-clock time in `timezone`. */
  next_fire_time_local: string | null;
  last_fire_time: string | null;
  /** Not paused and no fire time left: its trigger ended or it reached `max_runs`. */
  finished: boolean;
  /** Stays after it finished (otherwise removed once the job of its last fire ended). */
  keep_finished: boolean;
  /** Fire times dispatched so far (a `run_schedule_now` job is not a fire). */
  runs: number;
  max_runs: number | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export function wireSchedule(schedule: Schedule): WireSchedule {
  const timezone = triggerTimezone(schedule.trigger);
  const { nextFireAt, lastFireAt } = schedule;
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
    ...wireOverrides(schedule.overrides),
    metadata: schedule.metadata ?? {},
    description: schedule.description ?? null,
    ...(schedule.priority === 'critical' && { priority: schedule.priority }),
    ...(schedule.managedBy && { managed_by: wireManagement(schedule.managedBy) }),
    timezone,
    next_fire_time: nextFireAt === null ? null : isoUtc(nextFireAt),
    next_fire_time_local: nextFireAt === null ? null : isoInZone(nextFireAt, timezone),
    last_fire_time: lastFireAt === null ? null : isoUtc(lastFireAt),
    finished: isFinished(schedule),
    keep_finished: schedule.keepFinished,
    runs: schedule.runs,
    max_runs: schedule.maxRuns,
    version: schedule.version,
    created_at: isoUtc(schedule.createdAt),
    updated_at: isoUtc(schedule.updatedAt),
  };
}

function wireManagement(management: CodeManagement): WireManagement {
  return {
    declared_in: management.declaredIn,
    deployment: management.deployment,
    fingerprint: management.fingerprint,
    added_in: management.addedIn,
    added_over: management.addedOver,
  };
}

/** A fire time of `preview_schedule`, in UTC and as wall-clock time in the trigger's timezone. */
export interface WireFireTime {
  utc: string;
  local: string;
}

/** What the schedule actions answer. */
export interface ScheduleResults {
  add_schedule: { status: 'added' | 'replaced' | 'kept'; dispatched_jobs: number; schedule: WireSchedule };
  get_schedule: { schedule: WireSchedule };
  list_schedules: { schedules: WireSchedule[]; cursor: string | null };
  update_schedule: { dispatched_jobs: number; schedule: WireSchedule };
  pause_schedule: { schedule: WireSchedule };
  resume_schedule: { dispatched_jobs: number; schedule: WireSchedule };
  remove_schedule: { id: string; removed: true };
  preview_schedule: { trigger: TriggerSpec; timezone: string; from: string; fire_times: WireFireTime[] };
  run_schedule_now: { job: WireJob };
}

/** The request schema of each schedule action. */
export const SCHEDULE_REQUESTS = {
  add_schedule: addScheduleParams,
  get_schedule: scheduleIdParams,
  list_schedules: listSchedulesParams,
  update_schedule: updateScheduleParams,
  pause_schedule: scheduleIdParams,
  resume_schedule: resumeScheduleParams,
  remove_schedule: scheduleIdParams,
  preview_schedule: previewScheduleParams,
  run_schedule_now: scheduleIdParams,
} as const;
