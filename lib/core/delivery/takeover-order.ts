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

/**
 * How late a schedule change may become visible after its time (`updatedAt`: its admin request's clock
 * when the request began): the admin API begins the write at most {@link CHANGE_WRITE_BEGINS_WITHIN_MS}
 * after that (later, it writes nothing and answers `unavailable`), and the store's tries of one write end
 * well within the rest. It also covers the skew between the clocks of separate functions.
 */
export const CHANGE_LANDS_WITHIN_MS = 60_000;
export const CHANGE_WRITE_BEGINS_WITHIN_MS = 30_000;

/**
 * How far the clocks of two functions may disagree (the hosts of Lambda functions keep NTP time to
 * within milliseconds; the local platform's functions share one clock): a change timed this little after
 * a claim, by another clock, may have been visible before it.
 */
export const CLOCKS_AGREE_WITHIN_MS = 100;

export interface TakenOverRun {
  /**
   * When the run's definition was fixed (the job's `created_at`): the fire's first claim, or the reclaim
   * that took it again under a newer revision after its check cancelled it. What a run of it may have
   * started with was fixed then, though a later attempt (a takeover retrying it as stored) was claimed
   * after a change.
   */
  claimedAt: EpochMs;
  /** The schedule revision that definition was claimed under (`Job.claimedRevision`). */
  revision: ScheduleRevision | undefined;
}

/**
 * A change timed before the claim was seen by the claim's check only if it was visible by then: it is
 * before the claim when timed at least {@link CHANGE_LANDS_WITHIN_MS} earlier, and `unknown` when timed
 * closer (its write may have landed after the check, which then let the handler start with the old
 * definition), as is one timed so little after the claim that the two clocks may not tell them apart
 * ({@link CLOCKS_AGREE_WITHIN_MS}). The schedule keeps only its latest change's time (`updatedAt`), so after the claim can only mean
 * after it for every change when there was one change since the run's revision. With two or more, the
 * first may have come before the claim (a fire claimed after a pause returned and taken over after the
 * resume: the check saw the pause; a stale copy claimed after an update returned) or after it (the run
 * may have started): `unknown`. The revision is the run's own, as its claim stored it: the message
 * taking over may be of another (a stale copy, or a newer one with the same payload).
 */
export function takeoverOrder(schedule: Schedule, run: TakenOverRun): TakeoverOrder {
  if (schedule.updatedAt <= run.claimedAt - CHANGE_LANDS_WITHIN_MS) return 'before_claim';
  if (schedule.updatedAt <= run.claimedAt + CLOCKS_AGREE_WITHIN_MS) return 'unknown';
  if (!run.revision || run.revision.createdAt !== schedule.createdAt) return 'unknown';
  return schedule.version - run.revision.version <= 1 ? 'after_claim' : 'unknown';
}
