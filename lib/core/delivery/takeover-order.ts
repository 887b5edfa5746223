import type { TakenOverRun } from '../model/job';
import type { Schedule } from '../model/schedule';

/**
 * When a schedule's changes came relative to the claim of a run whose worker vanished:
 * - `after_claim`: only after it, so the vanished worker's check (if it got that far) saw none of
 *   them and the handler may have started: the takeover is a retry of the run;
 * - `before_claim`: every change came before it, so the check saw them and the handler never started;
 * - `unknown`: some may have come before it and some after.
 */
export type TakeoverOrder = 'after_claim' | 'before_claim' | 'unknown';

/**
 * The schedule keeps only its latest change's time (`updatedAt`), so after the claim can only mean
 * after it for every change when there was one change since the run's revision. With two or more, the
 * first may have come before the claim (a fire claimed after a pause returned and taken over after the
 * resume: the check saw the pause; a stale copy claimed after an update returned) or after it (the run
 * may have started): `unknown`. The revision is the run's own, as its claim stored it: the message
 * taking over may be of another (a stale copy, or a newer one with the same payload).
 */
export function takeoverOrder(schedule: Schedule, run: TakenOverRun): TakeoverOrder {
  if (schedule.updatedAt <= run.claimedAt) return 'before_claim';
  if (!run.revision || run.revision.createdAt !== schedule.createdAt) return 'unknown';
  return schedule.version - run.revision.version <= 1 ? 'after_claim' : 'unknown';
}
