import type { EpochMs } from '../../core/clock';
import type { Page, PageRequest } from '../../core/model/page';
import type { Schedule, ScheduleChanges } from '../../core/model/schedule';
import type {
  ConvertScheduleToNotesInput,
  DueNote,
  DueNotesPage,
  FindLiveNoteInput,
  FindLiveNotesInput,
  FinishScheduleOnNotesInput,
  ReadDueNotesInput,
  WriteDueNotesInput,
} from '../../core/ports/due-notes';
import type { DueShardLeaseInput } from '../../core/ports/due-shard-leases';
import type { FinishedScheduleRemoval } from '../../core/ports/finished-schedule-removal';
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
import { DEFAULT_SHARDS } from '../dynamodb/table-design';
import { MemoryJobStore } from './memory-jobs';
import { MemoryScheduleStore } from './memory-schedules';

/**
 * Schedules and jobs in memory, behind the same ports as the DynamoDB store.
 *
 * @example
 * const store = new MemoryStore();
 * await store.addSchedule({ schedule, nextFireAt, conflictPolicy: 'exception', now: clock.now() });
 */
export class MemoryStore extends MemoryJobStore implements ScheduleStore {
  private readonly schedules: MemoryScheduleStore;

  /** `shards`: of the due index, as the DynamoDB store's (shard leases and a dispatcher's share read by them). */
  constructor(options: { shards?: number } = {}) {
    super();
    this.schedules = new MemoryScheduleStore(options.shards ?? DEFAULT_SHARDS);
  }

  addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome> {
    return this.schedules.addSchedule(input);
  }

  getSchedule(id: string): Promise<Schedule | undefined> {
    return this.schedules.getSchedule(id);
  }

  listSchedules(filter: ScheduleFilter, page: PageRequest): Promise<Page<Schedule>> {
    return this.schedules.listSchedules(filter, page);
  }

  updateSchedule(
    id: string,
    changes: ScheduleChanges,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    expectedVersion?: number,
    takeBack?: FiresTakenBack,
    noted?: NotedState,
  ): Promise<Schedule> {
    return this.schedules.updateSchedule(id, changes, nextFireAt, now, expectedVersion, takeBack, noted);
  }

  pauseSchedule(id: string, now: EpochMs, takeBack?: FiresTakenBack, noted?: NotedState): Promise<Schedule> {
    return this.schedules.pauseSchedule(id, now, takeBack, noted);
  }

  giveBackRuns(id: string, count: number, createdAt: EpochMs): Promise<void> {
    return this.schedules.giveBackRuns(id, count, createdAt);
  }

  resumeSchedule(
    id: string,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    firesFrom?: EpochMs,
  ): Promise<Schedule> {
    return this.schedules.resumeSchedule(id, nextFireAt, now, firesFrom);
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.schedules.removeSchedule(id);
  }

  removeFinishedSchedule(
    id: string,
    lastFireAt: EpochMs | null,
    version: number,
    now: EpochMs,
  ): Promise<Schedule | undefined> {
    return this.schedules.removeFinishedSchedule(id, lastFireAt, version, now);
  }

  getFinishedScheduleRemoval(id: string): Promise<FinishedScheduleRemoval | undefined> {
    return this.schedules.getFinishedScheduleRemoval(id);
  }

  acquireDueSchedules(input: AcquireDueSchedulesInput): Promise<Schedule[]> {
    return this.schedules.acquireDueSchedules(input);
  }

  leaseSchedule(id: string, owner: string, now: EpochMs, leaseMs: number): Promise<Schedule | undefined> {
    return this.schedules.leaseSchedule(id, owner, now, leaseMs);
  }

  releaseSchedule(input: ReleaseScheduleInput): Promise<ReleaseOutcome> {
    return this.schedules.releaseSchedule(input);
  }

  readDueSchedules(input: ReadDueSchedulesInput): Promise<Schedule[]> {
    return this.schedules.readDueSchedules(input);
  }

  advanceSchedule(input: AdvanceScheduleInput): Promise<AdvanceOutcome> {
    return this.schedules.advanceSchedule(input);
  }

  get dueShards(): number {
    return this.schedules.dueShards;
  }

  leaseDueShard(input: DueShardLeaseInput): Promise<EpochMs | undefined> {
    return this.schedules.leaseDueShard(input);
  }

  releaseDueShard(shard: number, owner: string, now: EpochMs): Promise<boolean> {
    return this.schedules.releaseDueShard(shard, owner, now);
  }

  writeDueNotes(input: WriteDueNotesInput): Promise<void> {
    return this.schedules.writeDueNotes(input);
  }

  readDueNotes(input: ReadDueNotesInput): Promise<DueNotesPage> {
    return this.schedules.readDueNotes(input);
  }

  readNoteCursor(shard: number): Promise<number | undefined> {
    return this.schedules.readNoteCursor(shard);
  }

  createNoteCursor(shard: number, atBucket: number): Promise<number> {
    return this.schedules.createNoteCursor(shard, atBucket);
  }

  noteShardOf(scheduleId: string): number {
    return this.schedules.noteShardOf(scheduleId);
  }

  moveNoteCursor(shard: number, toBucket: number): Promise<boolean> {
    return this.schedules.moveNoteCursor(shard, toBucket);
  }

  convertScheduleToNotes(input: ConvertScheduleToNotesInput): Promise<boolean> {
    return this.schedules.convertScheduleToNotes(input);
  }

  findLiveNote(input: FindLiveNoteInput): Promise<DueNote | undefined> {
    return this.schedules.findLiveNote(input);
  }

  finishScheduleOnNotes(input: FinishScheduleOnNotesInput): Promise<boolean> {
    return this.schedules.finishScheduleOnNotes(input);
  }

  readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>> {
    return this.schedules.readSchedules(ids);
  }

  findLiveNotes(input: FindLiveNotesInput): Promise<Map<string, DueNote>> {
    return this.schedules.findLiveNotes(input);
  }

  /** Puts a note item as given, valid or not (a test aid for corrupt entries; not part of the port). */
  putRawNoteItem(shard: number, bucket: number, name: string, entries: unknown, expiresAt: EpochMs): void {
    this.schedules.putRawNoteItem(shard, bucket, name, entries, expiresAt);
  }

  override deleteExpiredRecords(now: EpochMs): void {
    super.deleteExpiredRecords(now);
    this.schedules.deleteExpiredNotes(now);
  }
}
