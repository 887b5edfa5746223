import type { EpochMs } from '../clock';
import type { Schedule } from '../model/schedule';
import type { ScheduleRevision } from '../model/schedule-revision';

/**
 * When a schedule's changes came relative to the claim of a run whose worker vanished:
 * - `after_claim`: only after it, so the vanished worker's check (if it got that far) saw none of
 *   them and the handler may have started: the takeover is a retry of the run;
 * - `before_claim`: every change came before it, so the check saw them and the handler never started;
 * - `unknown`: some may have come before it and some after.
 */
export type TakeoverOrder = 'after_claim' | 'before_claim' | 'unknown';

export interface TakenOverRun {
  /**
   * When the run's definition was fixed (the job's `created_at`): the fire's first claim, or the reclaim
   * that took it again under a newer revision after its check cancelled it. What a run of it may have
   * started with was fixed then, though a later attempt (a takeover retrying it as stored) was claimed
   * after a change.
   */
  claimedAt: EpochMs;
  /** The revision of the message taking over. */
  revision: ScheduleRevision;
  /** The message is of the run's definition (same task and payload): its revision is the run's. */
  sentAsRun: boolean;
}

/**
 * The schedule keeps only its latest change's time (`updatedAt`), so after the claim can only mean
 * after it for every change when there was one change since the run's revision. With two or more, the
 * first may have come before the claim (a fire claimed after a pause returned and taken over after the
 * resume: the check saw the pause) or after it (the run may have started): `unknown`. When the
 * message is not the run's own (a stale message taking over a newer run), its revision says nothing
 * of the run's and the latest change's time decides alone.
 */
export function takeoverOrder(schedule: Schedule, run: TakenOverRun): TakeoverOrder {
  if (schedule.updatedAt <= run.claimedAt) return 'before_claim';
  if (!run.sentAsRun) return 'after_claim';
  const sameSchedule = run.revision.createdAt === schedule.createdAt;
  return sameSchedule && schedule.version - run.revision.version <= 1 ? 'after_claim' : 'unknown';
}
