import type { WireFireTime, WireManagement, WireSchedule } from '../admin-contract/schedules';
import type { EpochMs } from '../clock';
import { isoInZone, isoUtc } from '../instants';
import type { CodeManagement } from '../model/schedule';
import { MaxIterationsReachedError, previewFireTimes, type TriggerSpec, triggerTimezone } from '../triggers';
import {
  changedFields,
  type DeclaredField,
  type DeclaredFields,
  type DesiredSchedule,
  definitionFingerprint,
  storedFields,
} from './desired';

/** One field a deploy changes: its value before and after. */
export interface FieldChange {
  field: DeclaredField;
  before: unknown;
  after: unknown;
}

/** The next fire times of a trigger, in UTC and as wall-clock time in its zone. */
export interface FireTimes {
  timezone: string;
  times: WireFireTime[];
}

/** The deploy that added a schedule: its revision, and the revision it replaced. */
export type AddedBy = Pick<CodeManagement, 'addedIn' | 'addedOver'>;

export interface PlannedCreate {
  id: string;
  declaredIn: string;
  fields: DeclaredFields;
  fireTimesAfter: FireTimes;
}

export interface PlannedUpdate {
  id: string;
  declaredIn: string;
  /** The version read: the update applies only to it. */
  version: number;
  /** Which deploy added the schedule (kept by the update). */
  added: AddedBy;
  fields: DeclaredFields;
  changes: FieldChange[];
  fireTimesBefore: FireTimes;
  fireTimesAfter: FireTimes;
}

export interface PlannedRemoval {
  id: string;
  declaredIn: string;
  task: string;
  added: AddedBy;
  fireTimesBefore: FireTimes;
}

/**
 * How a schedule declared in code differs from what its deploy wrote, not by code: `paused` (through the
 * admin API, kept by every deploy), or `edited` (its definition no longer matches what the deploy wrote:
 * changed outside Sundial, whose API refuses it; the next deploy writes the declaration again).
 */
export interface Drift {
  id: string;
  kind: 'paused' | 'edited';
  /** Who made it, as far as Sundial can tell (the admin API does not learn its caller's identity). */
  by: string;
  /** When the schedule last changed (a pause, a resume, a deploy's write). */
  at: string;
}

/** What a deploy of `desired` would change: creates and updates first, removals last. */
export interface SchedulePlan {
  create: PlannedCreate[];
  update: PlannedUpdate[];
  remove: PlannedRemoval[];
  /** Declared and stored alike. */
  unchanged: string[];
  /** Declared in code, but added through the admin API: a deploy refuses to take them over. */
  clashes: string[];
  drift: Drift[];
  /** Schedules declared in code that are stored now. */
  codeManaged: number;
}

/** Fire times each change shows, before and after: enough to see a time zone or DST shift. */
export const PLAN_FIRE_TIMES = 3;

/**
 * Compares the declared schedules with every stored one (as the admin API answers them) and says what a
 * deploy changes, field by field, with the next fire times before and after each change. Schedules the
 * admin API manages are never touched: a declared id among them is a clash.
 */
export function planSchedules(
  desired: readonly DesiredSchedule[],
  current: readonly WireSchedule[],
  now: EpochMs,
): SchedulePlan {
  const stored = new Map(current.map((schedule) => [schedule.id, schedule]));
  const declared = new Set(desired.map((schedule) => schedule.id));
  const plan: SchedulePlan = {
    create: [],
    update: [],
    remove: [],
    unchanged: [],
    clashes: [],
    drift: [],
    codeManaged: current.filter((schedule) => schedule.managed_by).length,
  };
  for (const schedule of desired) {
    const existing = stored.get(schedule.id);
    if (!existing) {
      plan.create.push({
        id: schedule.id,
        declaredIn: schedule.declaredIn,
        fields: schedule.fields,
        fireTimesAfter: fireTimes(schedule.fields.trigger, now),
      });
      continue;
    }
    if (!existing.managed_by) {
      plan.clashes.push(schedule.id);
      continue;
    }
    const before = storedFields(existing);
    const changed = changedFields(schedule.fields, before);
    if (changed.length === 0) plan.unchanged.push(schedule.id);
    else {
      plan.update.push({
        id: schedule.id,
        declaredIn: schedule.declaredIn,
        version: existing.version,
        added: addedBy(existing.managed_by),
        fields: schedule.fields,
        changes: changed.map((field) => ({ field, before: before[field], after: schedule.fields[field] })),
        fireTimesBefore: fireTimes(existing.trigger, now),
        fireTimesAfter: fireTimes(schedule.fields.trigger, now),
      });
    }
  }
  for (const schedule of current) {
    if (schedule.managed_by) plan.drift.push(...driftOf(schedule));
    if (!schedule.managed_by || declared.has(schedule.id)) continue;
    plan.remove.push({
      id: schedule.id,
      declaredIn: schedule.managed_by.declared_in,
      task: schedule.task,
      added: addedBy(schedule.managed_by),
      fireTimesBefore: fireTimes(schedule.trigger, now),
    });
  }
  return plan;
}

function addedBy(management: WireManagement): AddedBy {
  return { addedIn: management.added_in, addedOver: management.added_over };
}

function driftOf(schedule: WireSchedule): Drift[] {
  const drift: Drift[] = [];
  if (schedule.paused) {
    drift.push({ id: schedule.id, kind: 'paused', by: 'the admin API', at: schedule.updated_at });
  }
  if (definitionFingerprint(storedFields(schedule)) !== schedule.managed_by?.fingerprint) {
    drift.push({
      id: schedule.id,
      kind: 'edited',
      by: 'outside Sundial (its admin API refuses to change a schedule declared in code)',
      at: schedule.updated_at,
    });
  }
  return drift;
}

export interface RemovalGuard {
  /** The most a deploy may remove, in percent of the schedules declared in code; 100: any. */
  maxRemovalPercent: number;
  /**
   * The revision the deploy replaces. A deploy back to the revision that one replaced undoes it (a
   * rollback, or a revert): removing what it added is not counted.
   */
  previousRevision?: string;
}

/**
 * Why a deploy may not make the plan's removals, or undefined when it may: more than the allowed share
 * of the schedules declared in code, or all of them (unless any share is allowed).
 */
export function removalGuardProblem(
  plan: SchedulePlan,
  guard: RemovalGuard,
  revision: string,
): string | undefined {
  if (guard.maxRemovalPercent >= 100) return undefined;
  const undone = (removal: PlannedRemoval) =>
    removal.added.addedIn === guard.previousRevision && removal.added.addedOver === revision;
  const counted = plan.remove.filter((removal) => !undone(removal));
  if (counted.length === 0) return undefined;
  const share = (100 * counted.length) / plan.codeManaged;
  const all = counted.length === plan.codeManaged;
  if (!all && share <= guard.maxRemovalPercent) return undefined;
  const ids = counted.map((removal) => removal.id).join(', ');
  return `this deploy would remove ${all ? 'all' : `${counted.length} of the ${plan.codeManaged}`} schedules declared in code (${ids}); at most ${guard.maxRemovalPercent} % may go in one deploy, and never all: if that is intended, raise maxScheduleRemovalPercent (100 allows it)`;
}

/** The next fire times of a trigger from `now`, in UTC and in its zone; none when it has finished. */
function fireTimes(trigger: TriggerSpec, now: EpochMs): FireTimes {
  const timezone = triggerTimezone(trigger);
  try {
    const times = previewFireTimes(trigger, now, PLAN_FIRE_TIMES).map((instant) => ({
      utc: isoUtc(instant),
      local: isoInZone(instant, timezone),
    }));
    return { timezone, times };
  } catch (error) {
    // An `and` trigger whose triggers never meet again: no fire time to show.
    if (error instanceof MaxIterationsReachedError) return { timezone, times: [] };
    throw error;
  }
}
