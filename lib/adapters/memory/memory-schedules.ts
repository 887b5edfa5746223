import { type EpochMs, latestOf } from '../../core/clock';
import {
  ConflictingIdError,
  ScheduleMovedError,
  ScheduleNotFoundError,
  VersionConflictError,
} from '../../core/errors';
import { matchesMetadata } from '../../core/model/metadata';
import type { Page, PageRequest } from '../../core/model/page';
import { isFinished, type Schedule } from '../../core/model/schedule';
import { revisionOf } from '../../core/model/schedule-revision';
import { noteItemsToWrite } from '../../core/ports/due-note-items';
import {
  type FinishedScheduleRemoval,
  keepsRemovedSchedule,
  removalRecordExpiresAt,
} from '../../core/ports/finished-schedule-removal';
import type {
  AddScheduleInput,
  AddScheduleOutcome,
  ChainStart,
  FinishOutcome,
  FinishScheduleInput,
  PauseScheduleInput,
  ResumeScheduleInput,
  ScheduleFilter,
  SchedulePosition,
  ScheduleStore,
  StartCappedRunInput,
  StartCappedRunOutcome,
  UpdateScheduleInput,
} from '../../core/ports/schedule-store';
import { scheduleListing } from '../page-cursor';
import { MemoryDueNotes } from './memory-due-notes';
import { pageAfter } from './memory-pages';

/** Schedule fields for which `null` is a value to store, not a request to clear the field. */
const NULL_VALUED_FIELDS: ReadonlySet<string> = new Set(['misfireGraceSeconds', 'maxRuns', 'payload']);

/**
 * The in-memory reference `ScheduleStore`: the same contract as the DynamoDB store (one suite checks
 * both), for fast unit tests of the runtime. Every method is atomic (no awaits inside).
 */
export class MemoryScheduleStore extends MemoryDueNotes implements Omit<ScheduleStore, 'startCappedRun'> {
  private readonly schedules = new Map<string, Schedule>();
  /** Records left by `removeFinishedSchedule`: never schedules, so get and list do not see them. */
  private readonly removals = new Map<string, FinishedScheduleRemoval>();

  async addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome> {
    const { schedule: definition, now } = input;
    const existing = this.schedules.get(definition.id);
    if (existing && input.conflictPolicy === 'exception')
      throw new ConflictingIdError('schedule', definition.id);
    if (existing && input.conflictPolicy === 'do_nothing')
      return { status: 'kept', schedule: copy(existing) };
    this.startChain(input.start);
    const schedule: Schedule = {
      ...structuredClone(definition),
      ...input.position,
      firesFrom: now,
      version: (existing?.version ?? 0) + 1,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      chain: input.start?.chain ?? null,
      startedRuns: input.startedRuns ?? existing?.startedRuns ?? 0,
      lastStartedFireAt: existing?.lastStartedFireAt ?? null,
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

  async updateSchedule(input: UpdateScheduleInput): Promise<Schedule> {
    const { id, changes, now, restart } = input;
    const schedule = this.require(id);
    if (schedule.version !== input.expectedVersion) throw new VersionConflictError(id, input.expectedVersion);
    this.startChain(restart?.start ?? input.closing);
    for (const [field, value] of Object.entries(structuredClone(changes))) {
      // `null` clears an optional field (absent means none), as DynamoDB's REMOVE does; fields whose
      // "none" is `null` in the model keep it.
      if (value === null && !NULL_VALUED_FIELDS.has(field)) delete schedule[field as keyof Schedule];
      else if (value !== undefined) Object.assign(schedule, { [field]: value });
    }
    Object.assign(schedule, { updatedAt: now, version: schedule.version + 1 });
    if (changes.trigger !== undefined || restart) schedule.firesFrom = now;
    if (restart) moveTo(schedule, restart.position, restart.start?.chain ?? schedule.chain);
    if (restart?.startedRuns !== undefined) schedule.startedRuns = restart.startedRuns;
    return copy(schedule);
  }

  async pauseSchedule(input: PauseScheduleInput): Promise<Schedule> {
    const schedule = this.require(input.id);
    if (schedule.paused) return copy(schedule);
    if (schedule.version !== input.seenVersion) throw new ScheduleMovedError(input.id, input.seenVersion);
    moveTo(schedule, input.position, null);
    Object.assign(schedule, {
      paused: true,
      updatedAt: input.now,
      firesFrom: input.now,
      version: schedule.version + 1,
    });
    return copy(schedule);
  }

  async resumeSchedule(input: ResumeScheduleInput): Promise<Schedule> {
    const schedule = this.require(input.id);
    if (!schedule.paused) return copy(schedule);
    this.startChain(input.start);
    moveTo(schedule, input.position, input.start?.chain ?? null);
    Object.assign(schedule, {
      paused: false,
      firesFrom: input.firesFrom,
      updatedAt: input.now,
      version: schedule.version + 1,
    });
    return copy(schedule);
  }

  async finishSchedule(input: FinishScheduleInput): Promise<FinishOutcome> {
    const schedule = this.schedules.get(input.id);
    if (!schedule || schedule.paused || schedule.chain !== input.chain) return 'moved';
    if (schedule.nextFireAt === null) {
      // Finished already: by an earlier try of this finish, or (a different end) by its owner's change.
      return schedule.lastFireAt === input.lastFireAt ? 'finished' : 'moved';
    }
    Object.assign(schedule, { nextFireAt: null, lastFireAt: input.lastFireAt, runs: input.runs });
    return 'finished';
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

  async readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>> {
    const found = new Map<string, Schedule>();
    for (const id of ids) {
      const schedule = this.schedules.get(id);
      if (schedule) found.set(id, copy(schedule));
    }
    return found;
  }

  /**
   * The schedule's half of `startCappedRun` (the store that holds the jobs marks the job in the same
   * step, which is why this is not async): whether one more run may start, and with `count`, counting it.
   */
  countStartedRun(input: StartCappedRunInput, count: boolean): StartCappedRunOutcome {
    const schedule = this.schedules.get(input.scheduleId);
    if (schedule?.createdAt !== input.createdAt) return 'gone';
    if (schedule.startedRuns >= input.maxRuns) return 'limit_reached';
    if (count) {
      schedule.startedRuns += 1;
      schedule.lastStartedFireAt = latestOf(schedule.lastStartedFireAt, input.fireTime);
    }
    return 'started';
  }

  /** Writes a chain's first note, checked first: a write that throws leaves nothing behind. */
  private startChain(start: ChainStart | undefined): void {
    if (!start) return;
    const { writer, note, now } = start;
    this.putNoteItems(noteItemsToWrite({ writer, notes: [note], now }, (id) => this.noteShardOf(id)));
  }

  private require(id: string): Schedule {
    const schedule = this.schedules.get(id);
    if (!schedule) throw new ScheduleNotFoundError(id);
    return schedule;
  }
}

function moveTo(schedule: Schedule, position: SchedulePosition, chain: string | null): void {
  Object.assign(schedule, { ...position, chain });
}

function copy(schedule: Schedule): Schedule {
  return structuredClone(schedule);
}
