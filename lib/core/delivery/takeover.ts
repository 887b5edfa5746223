import type { Job } from '../model/job';
import { jobRequestOf } from '../model/job-messages';
import { isOlderRevision } from '../model/schedule-revision';
import type { Delivery, TaskTerms } from './delivery';

/**
 * The delivery going on as the next attempt of the stalled run it takes over. The check the run's claim
 * stored decides what that is (ADR 0002):
 * - passed (or none made): the handler may have started, so the run is retried as stored (the message
 *   may be older: sent before a schedule change), unchecked, under the terms of the run's task (`task`:
 *   a change may have moved the schedule to another task, whose limits the claim must take), with no
 *   start deadline (the run started in time) unless it was claimed after its deadline (that claim only
 *   recorded the miss, and its worker vanished before writing it: the takeover records the miss too);
 * - failed: the handler never started, so the fire is this delivery's to start, checked as the newer of
 *   its own copy and the run's: judged as the run's revision, the current definition's own copy would be
 *   cancelled with it when that definition planned its fires itself, and the fire lost; judged as an
 *   older copy, a replacement the run's revision sends (a later update that sent no copies) would be
 *   left out when the run's message is gone (its worker, late, lost its lease). A message without a
 *   revision checks the fire as the run's.
 */
export function takingOver(delivery: Delivery, run: Job, task: TaskTerms | undefined): Delivery {
  const next = {
    ...delivery,
    attempt: run.attempt + 1,
    claim: undefined,
    // The refusal that found the run (an ending without running's claim) was of the attempt taken over
    unrunClaim: undefined,
    woken: undefined,
    rested: false,
  };
  const { fire } = delivery;
  const ownCopyStarts = fire && !(run.claimedRevision && isOlderRevision(fire.revision, run.claimedRevision));
  if (run.checkFailed && ownCopyStarts) return next;
  const claimedLate =
    run.startDeadline !== null && run.startedAt !== null && run.startedAt > run.startDeadline;
  const failedRevision = run.checkFailed ? run.claimedRevision : undefined;
  return {
    ...next,
    job: { ...jobRequestOf(run), startDeadline: claimedLate ? run.startDeadline : null },
    task,
    fire: failedRevision && { revision: failedRevision, taskLogged: false },
    reads: undefined,
  };
}
