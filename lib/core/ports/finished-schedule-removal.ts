import type { EpochMs } from '../clock';
import type { Schedule } from '../model/schedule';
import type { ScheduleRevision } from '../model/schedule-revision';
import { DEDUPE_RECORD_RETENTION_MS } from './job-store';

/**
 * The record the cleanup of a finished schedule leaves behind (ADR 0004): the schedule as it was removed,
 * so that a fire of it still in the queue (a throttled delivery, a crashed worker's message, a waiting
 * line) is judged as the schedule would have judged it, instead of being cancelled as `ScheduleRemoved`.
 * An owner's `remove_schedule` leaves none: its fires stay cancelled (ADR 0002). Never a schedule:
 * get and list do not show it.
 */
export interface FinishedScheduleRemoval {
  scheduleId: string;
  revision: ScheduleRevision;
  lastFireAt: EpochMs | null;
  /**
   * The schedule as it was removed (finished: no next fire time, not paused), when it was ever changed
   * (`keepsRemovedSchedule`). Absent otherwise, and in records written before it was kept: those judge
   * only fires of `revision` itself.
   */
  schedule?: Schedule;
  /** When it may go: no message of a fire sent before the removal can be delivered after that. */
  expiresAt: EpochMs;
}

/**
 * A removal record outlives any copy of a message sent before the removal, as a job's dedupe record
 * does (queue retention, longest delay, a day of margin).
 */
export function removalRecordExpiresAt(removedAt: EpochMs): EpochMs {
  // A whole second: the table's TTL attribute holds seconds, and both stores answer the same.
  return Math.ceil((removedAt + DEDUPE_RECORD_RETENTION_MS) / 1000) * 1000;
}

/**
 * Whether the removal record keeps the whole removed schedule (payload included: a transaction bills it
 * twice per KB). Only a schedule changed since it was added (version > 1: updated, paused, resumed or replaced) can
 * have fires in the queue sent under another revision that rely on the worker's check to run as the
 * current one (ADR 0002), and need it to be judged after the cleanup. A schedule never changed sent every
 * fire under its one revision, and a fire of an earlier incarnation of its id is covered by the message
 * this one sent for the same fire time (same job id): the revision alone judges them.
 */
export function keepsRemovedSchedule(schedule: Pick<Schedule, 'version'>): boolean {
  return schedule.version > 1;
}
