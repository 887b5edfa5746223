import type { EpochMs } from '../clock';
import type { Metadata } from '../model/metadata';
import type { Page, PageRequest } from '../model/page';
import type { ConflictPolicy, Schedule, ScheduleChanges, ScheduleDefinition } from '../model/schedule';
import type { DueNote, DueNoteStore } from './due-notes';
import type { DueShardLeases } from './due-shard-leases';
import type { FinishedScheduleRemoval } from './finished-schedule-removal';

/** Where a schedule stands: its next fire time (`null`: finished), its latest fire time and its runs. */
export type SchedulePosition = Pick<Schedule, 'nextFireAt' | 'lastFireAt' | 'runs'>;

/**
 * A new note chain (ADR 0008): its token, and its first note, which the store writes in the same
 * atomic write as the schedule item that names the chain. A chain whose item was not written has no
 * note, and a note whose item was not written names a chain no item ever names: neither is lost.
 */
export interface ChainStart {
  chain: string;
  /** The chain's first note (its entry names `chain`), placed at or after the first open bucket of `now`. */
  note: DueNote;
  /** Names the note's item (`<writer>#00000`): unique per write, as for `writeDueNotes`. */
  writer: string;
  /** The writer's clock, read just before the write: it places the note (the placement margin). */
  now: EpochMs;
}

export interface AddScheduleInput {
  schedule: ScheduleDefinition;
  /** Where it starts: its first fire time from now (`null`: its trigger has none), and with `replace`, the replaced one's runs. */
  position: SchedulePosition;
  /** Its chain, when it is active (not paused, a fire time left). */
  start?: ChainStart;
  /** With `replace`: the count of started runs to keep (`startedRuns`); absent: the replaced one's, or 0. */
  startedRuns?: number;
  conflictPolicy: ConflictPolicy;
  now: EpochMs;
}

export interface AddScheduleOutcome {
  /** `kept`: the id existed and the policy was `do_nothing`; the stored schedule is returned unchanged. */
  status: 'added' | 'replaced' | 'kept';
  schedule: Schedule;
}

export interface UpdateScheduleInput {
  id: string;
  changes: ScheduleChanges;
  now: EpochMs;
  /** The write applies only to this version (`VersionConflictError` otherwise). */
  expectedVersion: number;
  /**
   * The fire times move (a new trigger, a change of `maxRuns` that finishes it or starts it again): its
   * position, and its new chain when active. Absent: the chain it has goes on, with the new definition.
   */
  restart?: { position: SchedulePosition; start?: ChainStart; startedRuns?: number };
  /**
   * A finished schedule the update stops keeping (`keepFinished` cleared): the chain of its closing note
   * alone (ADR 0011), written in the same write. Its position stays.
   */
  closing?: ChainStart;
}

export interface PauseScheduleInput {
  id: string;
  now: EpochMs;
  /** Where it stood when read (from its live note): it keeps it while paused. */
  position: SchedulePosition;
  /** The version that position was read at: a schedule changed since is not paused (`ScheduleMovedError`). */
  seenVersion: number;
}

export interface ResumeScheduleInput {
  id: string;
  now: EpochMs;
  /** From where the resumed definition's fire times run (`firesFrom`): now, or where a replay starts. */
  firesFrom: EpochMs;
  position: SchedulePosition;
  /** Its chain, when it has a fire time left. */
  start?: ChainStart;
}

/** A chain that ended (its trigger has no fire left, or its runs are used up): where it stopped. */
export interface FinishScheduleInput {
  id: string;
  chain: string;
  lastFireAt: EpochMs | null;
  runs: number;
}

/**
 * `finished`: written now, or by an earlier try of the same finish (its answer lost).
 * `moved`: the schedule is gone, paused, or moved on by another chain: its chain did not end here.
 */
export type FinishOutcome = 'finished' | 'moved';

/** A fire of a schedule with `maxRuns` about to start its handler (ADR 0008). */
export interface StartCappedRunInput {
  scheduleId: string;
  /** The schedule as read: its incarnation and the limit it has. */
  createdAt: EpochMs;
  maxRuns: number;
  /** The fire's job, running under `owner`: it is counted once, whichever delivery asks again. */
  jobId: string;
  owner: string;
  /** The fire's time: the schedule's `lastStartedFireAt` moves on to it (never back). */
  fireTime: EpochMs;
}

/**
 * `started`: counted now (or by an earlier try of this run: the job says so); the handler may start.
 * `limit_reached`: `maxRuns` fires have started already: this one must not.
 * `gone`: the schedule (of that incarnation) is gone, or the job is no longer run by `owner`.
 */
export type StartCappedRunOutcome = 'started' | 'limit_reached' | 'gone';

export interface ScheduleFilter {
  task?: string;
  tag?: string;
  paused?: boolean;
  /** Only schedules with all these metadata entries (applied to each page: a page may hold fewer items). */
  metadata?: Metadata;
}

/**
 * Durable schedules. Every write is conditional; a lost race is a result, never a silent overwrite.
 * An active schedule is moved on by its note chain (ADR 0008), never by a write of its item: only its
 * owner's changes, the end of its chain and the runs of a schedule with `maxRuns` write it.
 */
export interface ScheduleStore extends DueShardLeases, DueNoteStore {
  /**
   * Writes a new schedule (version 1, `firesFrom = now`) and its chain's first note, atomically. On an
   * existing id: `exception` throws `ConflictingIdError`; `replace` overwrites the definition and
   * position (version + 1, `firesFrom = now`, keeps `createdAt` and `startedRuns`); `do_nothing` changes
   * nothing.
   */
  addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome>;

  getSchedule(id: string): Promise<Schedule | undefined>;

  /** Pages through schedules, ordered by id, filtered by task, tag and paused state. */
  listSchedules(filter: ScheduleFilter, page: PageRequest): Promise<Page<Schedule>>;

  /**
   * Changes the definition (bumps `version`, sets `updatedAt`); a new trigger sets `firesFrom` to `now`,
   * and a restart writes its position and its new chain's first note in the same write. Throws
   * `VersionConflictError` if the stored version is not `expectedVersion`, `ScheduleNotFoundError` for an
   * unknown id.
   */
  updateSchedule(input: UpdateScheduleInput): Promise<Schedule>;

  /**
   * Sets `paused` and `firesFrom = now`, keeps the position read and ends its chain; bumps `version`.
   * Idempotent: a paused schedule is returned unchanged. Throws `ScheduleMovedError` when the schedule is
   * not paused and no longer at `seenVersion`.
   */
  pauseSchedule(input: PauseScheduleInput): Promise<Schedule>;

  /**
   * Clears `paused`, writes the position, `firesFrom` and its new chain (with its first note); bumps
   * `version`. Idempotent: an active schedule is returned unchanged.
   */
  resumeSchedule(input: ResumeScheduleInput): Promise<Schedule>;

  /**
   * Deletes the schedule, and the removal record of its id if any (`getFinishedScheduleRemoval`): every
   * fire of that id still queued is then cancelled. Returns false when the schedule did not exist. Its
   * jobs and results stay until they expire.
   */
  removeSchedule(id: string): Promise<boolean>;

  /**
   * Finishes an active schedule whose chain ended (`FinishScheduleInput`), before its reader sends the
   * last fires: only while it is not paused and still names that chain. It keeps the chain, so the note
   * that ended it still stands for those fires (a reader that died before sending them sends them again).
   */
  finishSchedule(input: FinishScheduleInput): Promise<FinishOutcome>;

  /**
   * Counts a fire of a schedule with `maxRuns` as started, in one atomic write with a mark on its job:
   * only while fewer than `maxRuns` started and the job is running under `owner` and not counted yet.
   */
  startCappedRun(input: StartCappedRunInput): Promise<StartCappedRunOutcome>;

  /**
   * Deletes a finished schedule (not paused, no next fire time, `keepFinished` false) whose last
   * dispatched fire time is `lastFireAt` and whose version is `version`, in one conditional write.
   * Returns the removed schedule, or undefined when it is gone or no longer matches (resumed, updated,
   * kept): the cleanup of a finished schedule never removes one its owner changed meanwhile.
   * In the same atomic write, it leaves a removal record holding the removed schedule
   * (`FinishedScheduleRemoval`, expiring at `removalRecordExpiresAt(now)`), which replaces any earlier
   * one of that id.
   */
  removeFinishedSchedule(
    id: string,
    lastFireAt: EpochMs | null,
    version: number,
    now: EpochMs,
  ): Promise<Schedule | undefined>;

  /** The record left by the last `removeFinishedSchedule` of this id (strongly consistent), if any. */
  getFinishedScheduleRemoval(id: string): Promise<FinishedScheduleRemoval | undefined>;
}
