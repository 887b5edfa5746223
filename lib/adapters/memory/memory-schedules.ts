import type { EpochMs } from '../../core/clock';
import {
  ConflictingIdError,
  LeaseLostError,
  ScheduleMovedError,
  ScheduleNotFoundError,
  VersionConflictError,
} from '../../core/errors';
import { matchesMetadata } from '../../core/model/metadata';
import type { Page, PageRequest } from '../../core/model/page';
import { isFinished, type Schedule, type ScheduleChanges } from '../../core/model/schedule';
import { revisionOf } from '../../core/model/schedule-revision';
import type { ConvertScheduleToNotesInput, FinishScheduleOnNotesInput } from '../../core/ports/due-notes';
import {
  type FinishedScheduleRemoval,
  keepsRemovedSchedule,
  removalRecordExpiresAt,
} from '../../core/ports/finished-schedule-removal';
import type {
  AcquireDueSchedulesInput,
  AddScheduleInput,
  AddScheduleOutcome,
  AdvanceOutcome,
  AdvanceScheduleInput,
  FiresTakenBack,
  NotedState,
  ReadDueSchedulesInput,
  ReleaseOutcome,
  ReleaseScheduleInput,
  ScheduleFilter,
  ScheduleStore,
} from '../../core/ports/schedule-store';
import { shardOf } from '../dynamodb/table-design';
import { scheduleListing } from '../page-cursor';
import { MemoryDueNotes } from './memory-due-notes';
import { pageAfter } from './memory-pages';

/**
 * The in-memory reference `ScheduleStore`: the same contract as the DynamoDB store (one suite checks
 * both), for fast unit tests of the runtime. Every method is atomic (no awaits inside).
 */
/** Schedule fields for which `null` is a value to store, not a request to clear the field. */
const NULL_VALUED_FIELDS: ReadonlySet<string> = new Set(['misfireGraceSeconds', 'maxRuns', 'payload']);

export class MemoryScheduleStore extends MemoryDueNotes implements ScheduleStore {
  private readonly schedules = new Map<string, Schedule>();
  /** Records left by `removeFinishedSchedule`: never schedules, so get and list do not see them. */
  private readonly removals = new Map<string, FinishedScheduleRemoval>();

  async addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome> {
    const { schedule: definition, nextFireAt, now } = input;
    const existing = this.schedules.get(definition.id);
    if (existing && input.conflictPolicy === 'exception')
      throw new ConflictingIdError('schedule', definition.id);
    if (existing && input.conflictPolicy === 'do_nothing')
      return { status: 'kept', schedule: copy(existing) };
    const { takeBack, noted } = input;
    if (existing) checkNotes(existing, noted, takeBack);
    else if (takeBack || noted) {
      throw new ScheduleMovedError(definition.id, noted?.seenVersion ?? takeBack?.seenVersion ?? 0);
    }
    const counted = noted ?? existing;
    const schedule: Schedule = {
      ...structuredClone(definition),
      nextFireAt,
      lastFireAt: takeBack ? takeBack.lastFireAt : (counted?.lastFireAt ?? null),
      runs: (counted?.runs ?? 0) - (takeBack?.count ?? 0),
      firesFrom: now,
      version: (existing?.version ?? 0) + 1,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      leaseOwner: existing?.leaseOwner ?? null,
      leaseUntil: existing?.leaseUntil ?? null,
    };
    this.schedules.set(schedule.id, schedule);
    return { status: existing ? 'replaced' : 'added', schedule: copy(schedule) };
  }

  async getSchedule(id: string): Promise<Schedule | undefined> {
    const schedule = this.schedules.get(id);
    return schedule && copy(schedule);
  }

  async listSchedules(filter: ScheduleFilter, page: PageRequest): Promise<Page<Schedule>> {
    const matching = [...this.schedules.values()]
      .filter(
        (schedule) =>
          (filter.task === undefined || schedule.task === filter.task) &&
          (filter.tag === undefined || schedule.tags.includes(filter.tag)) &&
          (filter.paused === undefined || schedule.paused === filter.paused) &&
          matchesMetadata(schedule.metadata, filter.metadata),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return pageAfter(matching, page, scheduleListing(filter), (schedule) => schedule.id, copy);
  }

  async updateSchedule(
    id: string,
    changes: ScheduleChanges,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    expectedVersion?: number,
    takeBack?: FiresTakenBack,
    noted?: NotedState,
  ): Promise<Schedule> {
    const schedule = this.require(id);
    if (expectedVersion !== undefined && schedule.version !== expectedVersion) {
      throw new VersionConflictError(id, expectedVersion);
    }
    checkNotes(schedule, noted, takeBack);
    carryNote(schedule, noted);
    if (takeBack) takeBackFrom(schedule, takeBack);
    for (const [field, value] of Object.entries(structuredClone(changes))) {
      // `null` clears an optional field (absent means none), as DynamoDB's REMOVE does; fields whose
      // "none" is `null` in the model keep it.
      if (value === null && !NULL_VALUED_FIELDS.has(field)) delete schedule[field as keyof Schedule];
      else if (value !== undefined) Object.assign(schedule, { [field]: value });
    }
    Object.assign(schedule, { nextFireAt, updatedAt: now, version: schedule.version + 1 });
    if (changes.trigger !== undefined) schedule.firesFrom = now;
    return copy(schedule);
  }

  async pauseSchedule(
    id: string,
    now: EpochMs,
    takeBack?: FiresTakenBack,
    noted?: NotedState,
  ): Promise<Schedule> {
    const schedule = this.require(id);
    if (!schedule.paused) checkNotes(schedule, noted, takeBack);
    if (!schedule.paused) {
      carryNote(schedule, noted);
      // Paused from its live note: it keeps the note's next fire time (the one it shows while paused).
      if (noted) schedule.nextFireAt = noted.nextFireAt;
      if (takeBack) takeBackFrom(schedule, takeBack);
      Object.assign(schedule, {
        paused: true,
        updatedAt: now,
        firesFrom: now,
        version: schedule.version + 1,
      });
    }
    return copy(schedule);
  }

  async resumeSchedule(
    id: string,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    firesFrom: EpochMs = now,
  ): Promise<Schedule> {
    const schedule = this.require(id);
    if (schedule.paused) {
      const version = schedule.version + 1;
      Object.assign(schedule, { paused: false, nextFireAt, firesFrom, updatedAt: now, version });
    }
    return copy(schedule);
  }

  async giveBackRuns(id: string, count: number, createdAt: EpochMs): Promise<void> {
    const schedule = this.schedules.get(id);
    if (schedule?.createdAt === createdAt) schedule.runs += count;
  }

  async removeSchedule(id: string): Promise<boolean> {
    this.removals.delete(id);
    return this.schedules.delete(id);
  }

  async removeFinishedSchedule(
    id: string,
    lastFireAt: EpochMs | null,
    version: number,
    now: EpochMs,
  ): Promise<Schedule | undefined> {
    const schedule = this.schedules.get(id);
    const removable =
      schedule !== undefined &&
      isFinished(schedule) &&
      !schedule.keepFinished &&
      schedule.version === version &&
      schedule.lastFireAt === lastFireAt;
    if (!removable) return undefined;
    this.schedules.delete(id);
    this.removals.set(id, {
      scheduleId: id,
      revision: revisionOf(schedule),
      lastFireAt: schedule.lastFireAt,
      ...(keepsRemovedSchedule(schedule) && { schedule: copy(schedule) }),
      expiresAt: removalRecordExpiresAt(now),
    });
    return copy(schedule);
  }

  async getFinishedScheduleRemoval(id: string): Promise<FinishedScheduleRemoval | undefined> {
    const removal = this.removals.get(id);
    return removal && structuredClone(removal);
  }

  async acquireDueSchedules(input: AcquireDueSchedulesInput): Promise<Schedule[]> {
    const due = [...this.schedules.values()]
      .filter((schedule) => isDue(schedule, input.dueBefore) && isFree(schedule, input.now))
      .sort((a, b) => (a.nextFireAt ?? 0) - (b.nextFireAt ?? 0))
      .slice(0, Math.max(0, input.limit));
    for (const schedule of due) takeLease(schedule, input.owner, input.now, input.leaseMs);
    return due.map(copy);
  }

  async leaseSchedule(
    id: string,
    owner: string,
    now: EpochMs,
    leaseMs: number,
  ): Promise<Schedule | undefined> {
    const schedule = this.schedules.get(id);
    if (!schedule || !isDue(schedule, Number.POSITIVE_INFINITY) || !isFree(schedule, now)) return undefined;
    takeLease(schedule, owner, now, leaseMs);
    return copy(schedule);
  }

  async releaseSchedule(input: ReleaseScheduleInput): Promise<ReleaseOutcome> {
    const schedule = this.schedules.get(input.id);
    if (!schedule) return 'gone';
    if (schedule.leaseOwner !== input.owner) throw new LeaseLostError('schedule', input.id, input.owner);
    Object.assign(schedule, { leaseOwner: null, leaseUntil: null });
    const changed = schedule.version !== input.leasedVersion;
    if (changed && schedule.firesFrom !== input.leased.firesFrom) return 'superseded';
    const moves =
      !changed ||
      (schedule.nextFireAt === input.leased.nextFireAt && schedule.maxRuns === input.leased.maxRuns);
    if (moves) schedule.nextFireAt = input.nextFireAt;
    if (input.lastFireAt !== null) schedule.lastFireAt = input.lastFireAt;
    schedule.runs += input.firesDispatched;
    if (!changed) return 'released';
    return moves ? 'released_changed' : 'superseded';
  }

  async readDueSchedules(input: ReadDueSchedulesInput): Promise<Schedule[]> {
    return [...this.schedules.values()]
      .filter(
        (schedule) =>
          isDue(schedule, input.dueBefore) &&
          isFree(schedule, input.now) &&
          !input.skip?.has(schedule.id) &&
          (input.shards === undefined || input.shards.includes(shardOf(schedule.id, this.dueShards))),
      )
      .sort((a, b) => (a.nextFireAt ?? 0) - (b.nextFireAt ?? 0))
      .slice(0, Math.max(0, input.limit))
      .map(copy);
  }

  async advanceSchedule(input: AdvanceScheduleInput): Promise<AdvanceOutcome> {
    const schedule = this.schedules.get(input.id);
    if (!schedule || schedule.createdAt !== input.seenCreatedAt) return 'gone';
    if (schedule.version !== input.seenVersion) return 'superseded';
    if (schedule.nextFireAt === input.seenNextFireAt && !schedule.onNotes && isFree(schedule, input.now)) {
      schedule.nextFireAt = input.nextFireAt;
      if (input.lastFireAt !== null) schedule.lastFireAt = input.lastFireAt;
      schedule.runs += input.firesDispatched;
      return 'advanced';
    }
    // Already where this write puts it: an earlier try of the same advance applied.
    return schedule.nextFireAt === input.nextFireAt && schedule.nextFireAt !== input.seenNextFireAt
      ? 'advanced'
      : 'lost';
  }

  async convertScheduleToNotes(input: ConvertScheduleToNotesInput): Promise<boolean> {
    const schedule = this.schedules.get(input.id);
    if (schedule?.createdAt !== input.seenCreatedAt || schedule.version !== input.seenVersion) return false;
    // A schedule with `maxRuns` stays item-indexed (ADR 0007).
    const asRead =
      schedule.nextFireAt === input.seenNextFireAt && !schedule.paused && schedule.maxRuns === null;
    if (asRead && !schedule.onNotes && isFree(schedule, input.now)) {
      // It keeps its next fire time (the one read): on notes, not finished (ADR 0007).
      Object.assign(schedule, { onNotes: true, runs: input.runs });
      if (input.lastFireAt !== null) schedule.lastFireAt = input.lastFireAt;
      return true;
    }
    // Already as this write leaves it: an earlier try of the same conversion applied.
    const sameLastFire = input.lastFireAt === null || schedule.lastFireAt === input.lastFireAt;
    return asRead && schedule.onNotes === true && schedule.runs === input.runs && sameLastFire;
  }

  async finishScheduleOnNotes(input: FinishScheduleOnNotesInput): Promise<boolean> {
    const schedule = this.schedules.get(input.id);
    if (schedule?.createdAt !== input.seenCreatedAt || schedule.version !== input.seenVersion) return false;
    const sameLastFire = input.lastFireAt === null || schedule.lastFireAt === input.lastFireAt;
    if (schedule.onNotes === true && !schedule.paused) {
      delete schedule.onNotes;
      schedule.nextFireAt = null;
      schedule.runs = input.runs;
      if (input.lastFireAt !== null) schedule.lastFireAt = input.lastFireAt;
      return true;
    }
    // Already as this write leaves it: an earlier try of the same finish applied.
    return (
      isFinished(schedule) && schedule.onNotes === undefined && schedule.runs === input.runs && sameLastFire
    );
  }

  async readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>> {
    const found = new Map<string, Schedule>();
    for (const id of ids) {
      const schedule = this.schedules.get(id);
      if (schedule) found.set(id, copy(schedule));
    }
    return found;
  }

  private require(id: string): Schedule {
    const schedule = this.schedules.get(id);
    if (!schedule) throw new ScheduleNotFoundError(id);
    return schedule;
  }
}

/** In the due index: not paused, a next fire time, not on due notes (ADR 0007). */
function isDue(schedule: Schedule, dueBefore: EpochMs): boolean {
  return (
    !schedule.paused && !schedule.onNotes && schedule.nextFireAt !== null && schedule.nextFireAt <= dueBefore
  );
}

/**
 * A write carrying a live note's state applies only to the schedule still on notes at the version read;
 * one without it only to a schedule not on notes (`NotedState`); a take-back without a note only while
 * its version and last fire time are as read.
 */
function checkNotes(schedule: Schedule, noted: NotedState | undefined, takeBack: FiresTakenBack | undefined) {
  const moved = noted
    ? !schedule.onNotes || schedule.version !== noted.seenVersion
    : schedule.onNotes === true || (takeBack !== undefined && movedSince(schedule, takeBack));
  if (moved)
    throw new ScheduleMovedError(
      schedule.id,
      noted?.seenVersion ?? takeBack?.seenVersion ?? schedule.version,
    );
}

/** Makes a schedule on notes item-indexed again, with its live note's count and last fire time. */
function carryNote(schedule: Schedule, noted: NotedState | undefined): void {
  delete schedule.onNotes;
  if (!noted) return;
  schedule.runs = noted.runs;
  schedule.lastFireAt = noted.lastFireAt;
}

function isFree(schedule: Schedule, now: EpochMs): boolean {
  return schedule.leaseUntil === null || schedule.leaseUntil < now;
}

function takeLease(schedule: Schedule, owner: string, now: EpochMs, leaseMs: number): void {
  Object.assign(schedule, { leaseOwner: owner, leaseUntil: now + leaseMs });
}

/** The schedule is no longer as a take-back read it (its version or last fire time moved). */
function movedSince(schedule: Schedule, takeBack: FiresTakenBack): boolean {
  return schedule.version !== takeBack.seenVersion || schedule.lastFireAt !== takeBack.seenLastFireAt;
}

function takeBackFrom(schedule: Schedule, takeBack: FiresTakenBack): void {
  schedule.runs -= takeBack.count;
  schedule.lastFireAt = takeBack.lastFireAt;
}

function copy(schedule: Schedule): Schedule {
  return structuredClone(schedule);
}
