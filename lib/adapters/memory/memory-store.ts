import type { EpochMs } from '../../core/clock';
import type { Page, PageRequest } from '../../core/model/page';
import type { Schedule } from '../../core/model/schedule';
import type {
  DueNote,
  DueNotesPage,
  FindLiveNotesInput,
  ReadDueNotesInput,
  WriteDueNotesInput,
} from '../../core/ports/due-notes';
import type { DueShardLeaseInput } from '../../core/ports/due-shard-leases';
import type { FinishedScheduleRemoval } from '../../core/ports/finished-schedule-removal';
import type {
  AddScheduleInput,
  AddScheduleOutcome,
  FinishOutcome,
  FinishScheduleInput,
  PauseScheduleInput,
  ResumeScheduleInput,
  ScheduleFilter,
  ScheduleStore,
  StartCappedRunInput,
  StartCappedRunOutcome,
  UpdateScheduleInput,
} from '../../core/ports/schedule-store';
import { DEFAULT_SHARDS } from '../dynamodb/table-design';
import { MemoryJobStore } from './memory-jobs';
import { MemoryScheduleStore } from './memory-schedules';

/**
 * Schedules and jobs in memory, behind the same ports as the DynamoDB store.
 *
 * @example
 * const store = new MemoryStore();
 * const schedule = await store.getSchedule('nightly');
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

  updateSchedule(input: UpdateScheduleInput): Promise<Schedule> {
    return this.schedules.updateSchedule(input);
  }

  pauseSchedule(input: PauseScheduleInput): Promise<Schedule> {
    return this.schedules.pauseSchedule(input);
  }

  resumeSchedule(input: ResumeScheduleInput): Promise<Schedule> {
    return this.schedules.resumeSchedule(input);
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.schedules.removeSchedule(id);
  }

  finishSchedule(input: FinishScheduleInput): Promise<FinishOutcome> {
    return this.schedules.finishSchedule(input);
  }

  /** Both halves checked before either is written: the job's mark and the schedule's count are one step. */
  async startCappedRun(input: StartCappedRunInput): Promise<StartCappedRunOutcome> {
    const job = this.markRunCounted(input.jobId, input.owner, false);
    if (job === 'not_running') return 'gone';
    if (job === 'counted') return 'started';
    const counted = this.schedules.countStartedRun(input, true);
    if (counted === 'started') this.markRunCounted(input.jobId, input.owner, true);
    return counted;
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

  removeDueNote(writer: string, note: DueNote): Promise<void> {
    return this.schedules.removeDueNote(writer, note);
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
