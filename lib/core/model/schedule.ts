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
}

/** A schedule as stored. */
export interface Schedule extends ScheduleDefinition {
  /**
   * The next fire time not yet dispatched; `null` when paused-and-unknown or finished. Of a schedule
   * `onNotes`, the one at its conversion (its live note holds the current one).
   */
  nextFireAt: EpochMs | null;
  /** The latest fire time dispatched. */
  lastFireAt: EpochMs | null;
  /** Fire times dispatched so far, each counted once (by the release that ends the lease it was sent under). */
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
  leaseOwner: string | null;
  leaseUntil: EpochMs | null;
  /**
   * True while the schedule is moved on by due notes (ADR 0007): out of the due index, its `nextFireAt`,
   * `lastFireAt` and `runs` are those at its conversion and its live note holds the current ones. Never
   * paused nor finished. Absent otherwise; every admin write makes the schedule item-indexed again.
   */
  onNotes?: boolean;
}

/** The optional fields of a schedule that `update_schedule` clears with `null`. */
type ClearableFields = 'overrides' | 'metadata' | 'description' | 'priority';

/** Changes an owner may make with `update_schedule` (`null` clears an optional field). */
export type ScheduleChanges = Partial<Omit<ScheduleDefinition, 'id' | 'paused' | ClearableFields>> & {
  [Field in ClearableFields]?: ScheduleDefinition[Field] | null;
};

/**
 * Finished: not paused and no fire time left to dispatch (its trigger ended, or it reached `maxRuns`). A
 * schedule on due notes (ADR 0007) has no `nextFireAt` on its item either, and is not finished.
 */
export function isFinished(schedule: Pick<Schedule, 'paused' | 'nextFireAt' | 'onNotes'>): boolean {
  return !schedule.paused && schedule.nextFireAt === null && schedule.onNotes !== true;
}

/** Whether a schedule with `runs` fires so far has reached `maxRuns` (it then finishes). */
export function reachedMaxRuns(runs: number, maxRuns: number | null): boolean {
  return maxRuns !== null && runs >= maxRuns;
}
