import type { EpochMs } from '../clock';
import type { Metadata } from '../model/metadata';
import type { Page, PageRequest } from '../model/page';
import type { ConflictPolicy, Schedule, ScheduleChanges, ScheduleDefinition } from '../model/schedule';
import type { DueNoteStore } from './due-notes';
import type { DueShardLeases } from './due-shard-leases';
import type { FinishedScheduleRemoval } from './finished-schedule-removal';

export interface AddScheduleInput {
  schedule: ScheduleDefinition;
  /** Computed by the caller from the trigger; `null` when the trigger has no fire time left. */
  nextFireAt: EpochMs | null;
  conflictPolicy: ConflictPolicy;
  now: EpochMs;
  /** With `replace`: the fires the replaced definition sent ahead, taken back in the same write. */
  takeBack?: FiresTakenBack;
  /** With `replace`, of a schedule read `onNotes`: its live note's state (`NotedState`). */
  noted?: NotedState;
}

/**
 * What a change that cancels the fires sent ahead (a pause, a new trigger, a replace) takes back out of
 * `runs` in its own write (ADR 0004): the write applies only while the schedule's version and last fire
 * time are as read, else it throws `ScheduleMovedError` (or `VersionConflictError`) and writes nothing.
 */
export interface FiresTakenBack {
  seenVersion: number;
  seenLastFireAt: EpochMs | null;
  /** Subtracted from `runs`; negative for fires an unreleased dispatch sent that the change counts. */
  count: number;
  /** The new `lastFireAt`: the latest fire time still counted. */
  lastFireAt: EpochMs | null;
}

/**
 * The live note's state (ADR 0007) that an admin write of a schedule `onNotes` carries onto its item,
 * making it item-indexed again: `runs` (less a take-back's count) and `lastFireAt` (a take-back's when
 * given) are set from it, and a pause keeps its `nextFireAt`. The write applies only while the item is
 * still on notes at `seenVersion`, else it throws `ScheduleMovedError` and writes nothing. (A note-indexed
 * item moves only by admin writes, which bump the version: the take-back's condition on the item's last
 * fire time, stale on such an item, is replaced by this one.) A write without it throws
 * `ScheduleMovedError` on an item on notes: its plan rested on the item's stale fire times.
 */
export interface NotedState {
  seenVersion: number;
  nextFireAt: EpochMs;
  runs: number;
  lastFireAt: EpochMs | null;
}

export interface AddScheduleOutcome {
  /** `kept`: the id existed and the policy was `do_nothing`; the stored schedule is returned unchanged. */
  status: 'added' | 'replaced' | 'kept';
  schedule: Schedule;
}

export interface ScheduleFilter {
  task?: string;
  tag?: string;
  paused?: boolean;
  /** Only schedules with all these metadata entries (applied to each page: a page may hold fewer items). */
  metadata?: Metadata;
}

export interface AcquireDueSchedulesInput {
  /** Unique per tick invocation. */
  owner: string;
  now: EpochMs;
  /** Schedules with `nextFireAt <= dueBefore` are due (now + lookahead). */
  dueBefore: EpochMs;
  leaseMs: number;
  /** At most this many schedules are leased in one call. */
  limit: number;
}

export interface ReleaseScheduleInput {
  id: string;
  owner: string;
  /** The version seen when the lease was taken. */
  leasedVersion: number;
  /**
   * What the plan rested on, as leased: when the owner changed the schedule meanwhile without touching
   * its fire times (`firesFrom` unchanged: no new trigger, pause or resume), the fires sent still run,
   * as the changed schedule (ADR 0002), so the release still counts them (see `ReleaseOutcome`).
   */
  leased: Pick<Schedule, 'nextFireAt' | 'firesFrom' | 'maxRuns'>;
  /** The first fire time not dispatched; `null` = the trigger is finished. */
  nextFireAt: EpochMs | null;
  /** The latest fire time dispatched under this lease (unchanged when `null`). */
  lastFireAt: EpochMs | null;
  /** How many fire times this lease dispatched: added to `runs` by the same conditional write. */
  firesDispatched: number;
  now: EpochMs;
}

export interface ReadDueSchedulesInput {
  now: EpochMs;
  /** Schedules with `nextFireAt <= dueBefore` are due (now + lookahead). */
  dueBefore: EpochMs;
  /** At most this many schedules are returned in one call. */
  limit: number;
  /** Ids to leave out (those this tick already handled and could not move on). */
  skip?: ReadonlySet<string>;
  /** Only these due-index shards (a dispatcher's share, ADR 0006); every shard when absent. */
  shards?: readonly number[];
}

export interface AdvanceScheduleInput {
  id: string;
  /** The version read. */
  seenVersion: number;
  /**
   * When the schedule read was added: a schedule removed and added again under the same id starts at
   * version 1 again, and must not take an advance planned from the one that was removed.
   */
  seenCreatedAt: EpochMs;
  /** The next fire time read (the plan started there). */
  seenNextFireAt: EpochMs;
  /** The first fire time not dispatched; `null` = the trigger is finished. */
  nextFireAt: EpochMs | null;
  /** The latest fire time dispatched (unchanged when `null`). */
  lastFireAt: EpochMs | null;
  /** Fire times dispatched by this plan, added to `runs` by the same write. */
  firesDispatched: number;
  now: EpochMs;
}

/**
 * `advanced`: next and last fire times written, or found already written (an earlier try of this write
 * whose answer was lost, or an overlapping tick's identical plan: either way the schedule is where this
 * plan puts it).
 * `lost`: the schedule was moved on by someone else (another tick's advance, or a live lease holds it);
 * its definition is unchanged.
 * `superseded`: its owner changed it (version bumped) since it was read; nothing was written.
 * `gone`: it was removed (possibly added again since: another schedule under the same id).
 */
export type AdvanceOutcome = 'advanced' | 'lost' | 'superseded' | 'gone';

/**
 * `released`: next fire time and last fire time written, lease cleared.
 * `released_changed`: the owner changed the schedule while it was leased without touching its fire
 * times, its next fire time or `maxRuns`: the fires sent run as the changed schedule (ADR 0002), so the
 * release wrote all a release writes, on the changed schedule (read it again for its fields).
 * `superseded`: the owner changed the schedule while it was leased. With its fire times unchanged the
 * fires sent are still added to `runs` and the last fire time moves; the owner's next fire time stands.
 * Otherwise only the lease was cleared.
 * `gone`: the schedule was removed while leased.
 */
export type ReleaseOutcome = 'released' | 'released_changed' | 'superseded' | 'gone';

/**
 * Durable schedules. Every write is conditional; a lost race is a result, never a silent overwrite.
 * The due index holds exactly the schedules that are not paused and have a `nextFireAt`.
 */
export interface ScheduleStore extends DueShardLeases, DueNoteStore {
  /**
   * Writes a new schedule (version 1, no lease, `firesFrom = now`). On an existing id: `exception`
   * throws `ConflictingIdError`; `replace` overwrites the definition and next fire time (version + 1,
   * `firesFrom = now`, keeps `createdAt`); `do_nothing` changes nothing.
   */
  addSchedule(input: AddScheduleInput): Promise<AddScheduleOutcome>;

  getSchedule(id: string): Promise<Schedule | undefined>;

  /** Pages through schedules, ordered by id, filtered by task, tag and paused state. */
  listSchedules(filter: ScheduleFilter, page: PageRequest): Promise<Page<Schedule>>;

  /**
   * Changes the definition and sets the next fire time; bumps `version` and `updatedAt`. A new trigger
   * sets `firesFrom` to `now`.
   * With `expectedVersion`, throws `VersionConflictError` if the stored version differs.
   * Throws `ScheduleNotFoundError` for an unknown id.
   */
  updateSchedule(
    id: string,
    changes: ScheduleChanges,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    expectedVersion?: number,
    takeBack?: FiresTakenBack,
    noted?: NotedState,
  ): Promise<Schedule>;

  /**
   * Sets `paused` (removing it from the due index) and `firesFrom = now`; bumps `version`; takes back
   * `takeBack` in the same write. Idempotent: a paused schedule is returned unchanged.
   */
  pauseSchedule(id: string, now: EpochMs, takeBack?: FiresTakenBack, noted?: NotedState): Promise<Schedule>;

  /**
   * Adds `count` to `runs` of the schedule added at `createdAt` (else nothing): gives back fires a
   * change took back but that may have run, because its write landed later than it planned for.
   */
  giveBackRuns(id: string, count: number, createdAt: EpochMs): Promise<void>;

  /**
   * Clears `paused` and sets the next fire time and `firesFrom` (default `now`) computed by the caller;
   * bumps `version`. Idempotent.
   */
  resumeSchedule(
    id: string,
    nextFireAt: EpochMs | null,
    now: EpochMs,
    firesFrom?: EpochMs,
  ): Promise<Schedule>;

  /**
   * Deletes the schedule, and the removal record of its id if any (`getFinishedScheduleRemoval`): every
   * fire of that id still queued is then cancelled. Returns false when the schedule did not exist. Its
   * jobs and results stay until they expire.
   */
  removeSchedule(id: string): Promise<boolean>;

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

  /**
   * Queries every due shard for `dueAt <= dueBefore` (in pages) and leases each hit with a conditional
   * update: no live lease (`leaseUntil` absent or `< now`) and `nextFireAt` unchanged since the query.
   * Returns the leased schedules; a lost race leaves the schedule out, it is not an error.
   */
  acquireDueSchedules(input: AcquireDueSchedulesInput): Promise<Schedule[]>;

  /**
   * Leases one schedule by id, under the same conditions as `acquireDueSchedules` (no live lease, not
   * paused, has a next fire time). The admin API uses it to dispatch a schedule whose first fire time is
   * inside the lookahead window at once. Returns undefined when it cannot be leased (someone else holds it).
   */
  leaseSchedule(id: string, owner: string, now: EpochMs, leaseMs: number): Promise<Schedule | undefined>;

  /** Ends a lease taken by `acquireDueSchedules` or `leaseSchedule`. Throws `LeaseLostError` if `owner` no longer holds it. */
  releaseSchedule(input: ReleaseScheduleInput): Promise<ReleaseOutcome>;

  /**
   * Reads due schedules (`nextFireAt <= dueBefore`, not paused, no live lease, not in `skip`), earliest
   * first, strongly consistent, without writing anything: the lease-less tick (ADR 0005).
   */
  readDueSchedules(input: ReadDueSchedulesInput): Promise<Schedule[]>;

  /**
   * Moves a schedule read by `readDueSchedules` on, in one conditional write: only when its next fire
   * time and version are still those read and no live lease holds it. Of overlapping ticks that read
   * the same state, exactly one advances it.
   */
  advanceSchedule(input: AdvanceScheduleInput): Promise<AdvanceOutcome>;
}
