import type { EpochMs } from '../clock';
import type { JsonValue } from '../json';
import type { TriggerSpec } from '../triggers/schema';
import type { Metadata } from './metadata';
import type { Priority } from './priority';
import type { RunSettingOverrides } from './run-settings';

export const COALESCE_POLICIES = ['latest', 'earliest', 'all'] as const;
/** What to do with several fire times that were missed (outage, paused tick): keep the latest, the earliest, or all. */
export type CoalescePolicy = (typeof COALESCE_POLICIES)[number];

export const CONFLICT_POLICIES = ['do_nothing', 'replace', 'exception'] as const;
/** What adding a schedule or job does when the id exists already. */
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

/** The part of a schedule its owner controls. */
export interface ScheduleDefinition {
  id: string;
  task: string;
  trigger: TriggerSpec;
  payload: JsonValue;
  coalesce: CoalescePolicy;
  /** Seconds after its fire time (plus jitter) that a job may still start; `null` = no deadline. */
  misfireGraceSeconds: number | null;
  /** Each fire is delayed by a random 0..maxJitterSeconds, never reaching the next fire time. */
  maxJitterSeconds: number;
  tags: string[];
  paused: boolean;
  /** Overrides of the task's run settings, copied into each job of the schedule; absent = none. */
  overrides?: RunSettingOverrides;
  /** Copied into each job of the schedule; absent = none. */
  metadata?: Metadata;
  description?: string;
  /** Copied into each job of the schedule (its place in its task's line, its queue); absent = `normal`. */
  priority?: Priority;
  /** Stays after its trigger finished; otherwise it is removed once the job of its last fire ended. */
  keepFinished: boolean;
  /** The schedule finishes after this many fires; `null` = no limit. */
  maxRuns: number | null;
  /** Present when the schedule is declared in code (and written by its reconcile); absent: the admin API's. */
  managedBy?: CodeManagement;
}

/**
 * Who manages a schedule declared in code, and what the reconcile that last wrote it knew. The admin API
 * refuses to change its definition (pausing and resuming it stay allowed: operational state).
 */
export interface CodeManagement {
  /** Where the declaration lives: `functions/send-report.ts`, or the CDK app's `schedules` prop. */
  declaredIn: string;
  /** The deploy (or `npm start` run) whose reconcile last wrote the schedule. */
  deployment: string;
  /**
   * Fingerprint of the definition that reconcile wrote (`definitionFingerprint`): a stored definition
   * that no longer matches it was edited outside the deploy.
   */
  fingerprint: string;
  /** The revision (fingerprint of the whole declared set) of the deploy that added the schedule. */
  addedIn: string;
  /** The revision that deploy replaced (empty for a stack's first deploy): undoing it removes the schedule. */
  addedOver: string;
}

/**
 * A schedule as stored. While it is active (not paused, not finished) its position is its note chain's
 * (ADR 0008): `nextFireAt`, `lastFireAt` and `runs` on the item are where that chain started, and its
 * live note holds where it stands now. Paused, they are where it stood when paused; finished, where its
 * chain ended.
 */
export interface Schedule extends ScheduleDefinition {
  /** The next fire time not yet dispatched (see above); `null` when finished. */
  nextFireAt: EpochMs | null;
  /** The latest fire time dispatched. */
  lastFireAt: EpochMs | null;
  /** Fire times dispatched so far, less those a change cancelled before they could start. */
  runs: number;
  /**
   * Fire times before this instant are not the current definition's to run: when the schedule was
   * added, its trigger last changed, or it was last resumed (from where the resume replays); while
   * paused, when the pause began. A fire sent to the queue under an earlier revision runs (under the
   * current one) only when its fire time is at or after this instant.
   */
  firesFrom: EpochMs;
  /** Bumped by every change its owner makes (not by ticks). */
  version: number;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /**
   * The note chain that moves it on (ADR 0008): a new token for every write that moves its fire times
   * (add, a new trigger, resume, replace, a restart past `maxRuns`); its notes stand only while the item
   * names it. `null` while paused, and for a schedule that never had a fire time.
   */
  chain: string | null;
  /**
   * With `maxRuns`: fires whose handler started, counted by the worker as each starts, in the write
   * that lets it start only while fewer than `maxRuns` did (ADR 0008). 0 without `maxRuns`.
   */
  startedRuns: number;
  /**
   * With `maxRuns`: the latest fire time among the fires `startedRuns` counts, moved on in the same
   * write. A new chain (resume, replay, new trigger, replace) starts after it: its fires never include
   * one counted already, whose job would not run again. `null` until a capped fire starts.
   */
  lastStartedFireAt: EpochMs | null;
}

/** The optional fields of a schedule that `update_schedule` clears with `null`. */
type ClearableFields = 'overrides' | 'metadata' | 'description' | 'priority';

/** Changes an owner may make with `update_schedule` (`null` clears an optional field). */
export type ScheduleChanges = Partial<Omit<ScheduleDefinition, 'id' | 'paused' | ClearableFields>> & {
  [Field in ClearableFields]?: ScheduleDefinition[Field] | null;
};

/** Finished: not paused and no fire time left to dispatch (its trigger ended, or it reached `maxRuns`). */
export function isFinished(schedule: Pick<Schedule, 'paused' | 'nextFireAt'>): boolean {
  return !schedule.paused && schedule.nextFireAt === null;
}

/** Active: moved on by its note chain (not paused, a fire time left). */
export function isActive(schedule: Pick<Schedule, 'paused' | 'nextFireAt'>): boolean {
  return !schedule.paused && schedule.nextFireAt !== null;
}

/** Whether a schedule with `runs` fires so far has reached `maxRuns` (it then finishes). */
export function reachedMaxRuns(runs: number, maxRuns: number | null): boolean {
  return maxRuns !== null && runs >= maxRuns;
}
