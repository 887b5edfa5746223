import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import type { JobMessageBody } from '../../core/model/job-message';
import type { Page, PageRequest } from '../../core/model/page';
import type { RateLimit } from '../../core/model/rate-limit';
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
  ClaimJobInput,
  ClaimOutcome,
  CreateJobInput,
  FinishJobInput,
  JobFilter,
  JobRequest,
  JobStore,
  RetryEndedJobInput,
  RetryEndedJobOutcome,
  RetryJobInput,
  RunEnd,
} from '../../core/ports/job-store';
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
import type {
  LineEntry,
  RateWakeBooking,
  TaskSlots,
  WakeHeadsInput,
  WokenEntry,
  WokenPostponement,
  WokenRelease,
  WokenReleaseInput,
} from '../../core/ports/waiting-line';
import * as cancelRequests from './cancel-requests';
import * as cappedRuns from './capped-runs';
import * as counterRepair from './counter-repair';
import * as counters from './counters';
import * as noteCursors from './due-note-cursors';
import * as dueNotes from './due-notes';
import * as shardLeases from './due-shard-leases';
import * as finishedRemovals from './finished-schedule-removals';
import * as fireLog from './fire-log';
import * as claims from './job-claims';
import * as endings from './job-endings';
import * as parking from './job-parking';
import * as jobReads from './job-reads';
import * as retries from './job-retries';
import * as noteSchedules from './note-schedules';
import { DEFAULT_RETRY_POLICY, defaultSleep, type RetryPolicy, type Sleep } from './retry';
import * as listing from './schedule-listing';
import * as scheduleWrites from './schedule-writes';
import * as slotBack from './slot-back';
import * as startGate from './start-gate';
import { StoreContext } from './store-context';
import { DEFAULT_SHARDS, shardOf } from './table-design';
import * as waitingLine from './waiting-line';
import * as wokenEntries from './woken-entries';

export interface DynamoDbStoreOptions {
  /**
   * A document client, or a plain client (wrapped with `removeUndefinedValues`). Build it with
   * `storeClient()`: the store retries, so its SDK client must send each request once.
   */
  client: DynamoDBDocumentClient | DynamoDBClient;
  tableName: string;
  /** Due-note, due-index and running-index shards. Never lower it for an existing table. @default 16 */
  shards?: number;
  /** Total tries for a request failing with throttling or transient errors (or leaving keys unprocessed). @default 6 */
  maxAttempts?: number;
  /** Backoff between tries (full jitter). @default { baseDelayMs: 25, maxDelayMs: 1000 } */
  backoff?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  /** How the store waits between tries. @default setTimeout */
  sleep?: Sleep;
  /**
   * How long `writeDueNotes` may take, tries included, before it gives up (`StoreUnavailableError`): a note
   * counted as written must land inside the placement margin (ADR 0007). @default NOTE_WRITE_TIMEOUT_MS
   */
  noteWriteTimeoutMs?: number;
}

/**
 * Schedules, jobs, results and task counters in one DynamoDB table (see table-design.ts). Every write is
 * conditional; expected condition failures come back as domain results or errors, transient failures
 * are retried and end in `StoreUnavailableError`.
 *
 * @example
 * const store = new DynamoDbStore({ client: new DynamoDBClient({}), tableName: 'sundial' });
 * const schedule = await store.getSchedule('nightly');
 */
export class DynamoDbStore implements ScheduleStore, JobStore {
  private readonly context: StoreContext;
  private readonly noteWriteTimeoutMs: number;

  constructor(options: DynamoDbStoreOptions) {
    this.noteWriteTimeoutMs = options.noteWriteTimeoutMs ?? dueNotes.NOTE_WRITE_TIMEOUT_MS;
    const client =
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
    const retry: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      ...options.backoff,
      maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    };
    this.context = new StoreContext(
      client,
      options.tableName,
      options.shards ?? DEFAULT_SHARDS,
      retry,
      options.sleep ?? defaultSleep,
    );
  }

  addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome> {
    return scheduleWrites.addSchedule(this.context, input);
  }

  getSchedule(id: string): Promise<Schedule | undefined> {
    return scheduleWrites.getSchedule(this.context, id);
  }

  listSchedules(filter: ScheduleFilter, page: PageRequest): Promise<Page<Schedule>> {
    return listing.listSchedules(this.context, filter, page);
  }

  updateSchedule(input: UpdateScheduleInput): Promise<Schedule> {
    return scheduleWrites.updateSchedule(this.context, input);
  }

  pauseSchedule(input: PauseScheduleInput): Promise<Schedule> {
    return scheduleWrites.pauseSchedule(this.context, input);
  }

  resumeSchedule(input: ResumeScheduleInput): Promise<Schedule> {
    return scheduleWrites.resumeSchedule(this.context, input);
  }

  finishSchedule(input: FinishScheduleInput): Promise<FinishOutcome> {
    return scheduleWrites.finishSchedule(this.context, input);
  }

  startCappedRun(input: StartCappedRunInput): Promise<StartCappedRunOutcome> {
    return cappedRuns.startCappedRun(this.context, input);
  }

  removeSchedule(id: string): Promise<boolean> {
    return scheduleWrites.removeSchedule(this.context, id);
  }

  removeFinishedSchedule(
    id: string,
    lastFireAt: EpochMs | null,
    version: number,
    now: EpochMs,
  ): Promise<Schedule | undefined> {
    return finishedRemovals.removeFinishedSchedule(this.context, id, lastFireAt, version, now);
  }

  getFinishedScheduleRemoval(id: string): Promise<FinishedScheduleRemoval | undefined> {
    return finishedRemovals.getFinishedScheduleRemoval(this.context, id);
  }

  get dueShards(): number {
    return this.context.shards;
  }

  leaseDueShard(input: DueShardLeaseInput): Promise<EpochMs | undefined> {
    return shardLeases.leaseDueShard(this.context, input);
  }

  releaseDueShard(shard: number, owner: string, now: EpochMs): Promise<boolean> {
    return shardLeases.releaseDueShard(this.context, shard, owner, now);
  }

  writeDueNotes(input: WriteDueNotesInput): Promise<void> {
    return dueNotes.writeDueNotes(this.context, input, this.noteWriteTimeoutMs);
  }

  removeDueNote(writer: string, note: DueNote): Promise<void> {
    return dueNotes.removeDueNote(this.context, writer, note);
  }

  readDueNotes(input: ReadDueNotesInput): Promise<DueNotesPage> {
    return dueNotes.readDueNotes(this.context, input);
  }

  readNoteCursor(shard: number): Promise<number | undefined> {
    return noteCursors.readNoteCursor(this.context, shard);
  }

  createNoteCursor(shard: number, atBucket: number): Promise<number> {
    return noteCursors.createNoteCursor(this.context, shard, atBucket);
  }

  noteShardOf(scheduleId: string): number {
    return shardOf(scheduleId, this.context.shards);
  }

  moveNoteCursor(shard: number, toBucket: number): Promise<boolean> {
    return noteCursors.moveNoteCursor(this.context, shard, toBucket);
  }

  readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>> {
    return noteSchedules.readSchedules(this.context, ids);
  }

  findLiveNotes(input: FindLiveNotesInput): Promise<Map<string, DueNote>> {
    return dueNotes.findLiveNotes(this.context, input);
  }

  createJob(input: CreateJobInput): Promise<{ status: 'added' | 'replaced' | 'kept'; job: Job }> {
    return parking.createJob(this.context, input);
  }

  parkUnclaimedJob(jobId: string): Promise<Job | undefined> {
    return parking.parkUnclaimedJob(this.context, jobId);
  }

  claimJob(input: ClaimJobInput): Promise<ClaimOutcome> {
    return claims.claimJob(this.context, input);
  }

  finishJob(input: FinishJobInput): Promise<RunEnd> {
    return endings.finishJob(this.context, input);
  }

  retryJob(input: RetryJobInput): Promise<RunEnd> {
    return endings.retryJob(this.context, input);
  }

  retryEndedJob(input: RetryEndedJobInput): Promise<RetryEndedJobOutcome | undefined> {
    return retries.retryEndedJob(this.context, input);
  }

  getJob(id: string, now: EpochMs): Promise<Job | undefined> {
    return jobReads.getJob(this.context, id, now);
  }

  getJobRecord(id: string): Promise<Job | undefined> {
    return jobReads.getJobRecord(this.context, id);
  }

  listJobs(filter: JobFilter, page: PageRequest, now: EpochMs): Promise<Page<Job>> {
    return jobReads.listJobs(this.context, filter, page, now);
  }

  logFiresToSend(jobs: readonly JobRequest[], now: EpochMs): Promise<ReadonlySet<string>> {
    return fireLog.logFiresToSend(this.context, jobs, now);
  }

  cancelJob(id: string, now: EpochMs, expiresAt: EpochMs, request?: JobRequest): Promise<Job | undefined> {
    return endings.cancelJob(this.context, id, now, expiresAt, request);
  }

  requestCancel(id: string, now: EpochMs): Promise<Job | undefined> {
    return cancelRequests.requestCancel(this.context, id, now);
  }

  isCancelRequested(id: string, owner: string): Promise<boolean> {
    return cancelRequests.isCancelRequested(this.context, id, owner);
  }

  acquireDueJobs(
    owner: string,
    now: EpochMs,
    dueBefore: EpochMs,
    leaseMs: number,
    limit: number,
  ): Promise<Job[]> {
    return parking.acquireDueJobs(this.context, owner, now, dueBefore, leaseMs, limit);
  }

  markJobSent(jobId: string, owner: string): Promise<void> {
    return parking.markJobSent(this.context, jobId, owner);
  }

  findExpiredJobLeases(now: EpochMs, limit: number): Promise<Job[]> {
    return jobReads.findExpiredJobLeases(this.context, now, limit);
  }

  runningCounts(): Promise<Map<string, number>> {
    return counters.runningCounts(this.context);
  }

  repairCounters(now: EpochMs): Promise<Map<string, { was: number; now: number }>> {
    return counterRepair.repairCounters(this.context, now);
  }

  joinLine(input: { message: JobMessageBody; now: EpochMs }): Promise<TaskSlots | undefined> {
    return waitingLine.joinLine(this.context, input);
  }

  lineHead(task: string): Promise<LineEntry | undefined> {
    return waitingLine.lineHead(this.context, task);
  }

  wakeHeads(input: WakeHeadsInput): Promise<WokenEntry[]> {
    return wokenEntries.wakeHeads(this.context, input);
  }

  releaseWoken(input: WokenReleaseInput): Promise<WokenRelease> {
    return slotBack.releaseWoken(this.context, input);
  }

  overdueWoken(task: string, now: EpochMs): Promise<WokenEntry[]> {
    return wokenEntries.overdueWoken(this.context, task, now);
  }

  markWokenResent(entry: Pick<WokenEntry, 'task' | 'position' | 'wokenAt'>, now: EpochMs): Promise<boolean> {
    return wokenEntries.markWokenResent(this.context, entry, now);
  }

  postponeWoken(input: WokenPostponement): Promise<boolean> {
    return wokenEntries.postponeWoken(this.context, input);
  }

  waitingCount(task: string): Promise<number> {
    return waitingLine.waitingCount(this.context, task);
  }

  isWaiting(task: string, position: string, createToken?: string): Promise<boolean> {
    return waitingLine.isWaiting(this.context, task, position, createToken);
  }

  taskSlots(task: string): Promise<TaskSlots | undefined> {
    return waitingLine.taskSlots(this.context, task);
  }

  retakeRateStart(
    task: string,
    rate: RateLimit,
    now: EpochMs,
  ): Promise<{ taken: true } | { taken: false; nextStartAt?: EpochMs }> {
    return startGate.retakeRateStart(this.context, task, rate, now);
  }

  bookRateWake(booking: RateWakeBooking): Promise<boolean> {
    return startGate.bookRateWake(this.context, booking);
  }

  releaseRateWake(task: string, at: EpochMs): Promise<void> {
    return startGate.releaseRateWake(this.context, task, at);
  }

  allTaskSlots(): Promise<TaskSlots[]> {
    return waitingLine.allTaskSlots(this.context);
  }

  setTaskPaused(task: string, paused: boolean): Promise<TaskSlots> {
    return waitingLine.setTaskPaused(this.context, task, paused);
  }
}
