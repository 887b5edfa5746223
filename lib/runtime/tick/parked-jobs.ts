import type { Clock } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { parkedJobMessage } from '../../core/model/job-messages';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import { linePosition } from '../../core/ports/waiting-line';
import type { Logger } from '../observability/logger';

export interface ParkedJobsDeps {
  jobStore: JobStore;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
}

export interface ParkedJobsOptions {
  owner: string;
  lookaheadMs: number;
  leaseMs: number;
  /** Jobs leased per round. */
  limit: number;
  /** Stop leasing more jobs at this instant (the tick's budget). */
  stopAcquiringAt: number;
}

/**
 * Sends the jobs parked in the due index (they wait longer than the queue's 15-minute delay, or their
 * send failed) once they come within the lookahead, then takes them out of the index. A job added for
 * now is in the index too, from well after its run time until its claim, in case its send was lost
 * (`CreateJobInput.resendIfUnclaimedAt`): one that waits in its task's line (it was delivered and
 * found no slot) is only taken out; any other is sent again, and a copy of a message that did go out
 * is dropped at its claim. Works in rounds of `limit` until a round leases none, the budget is spent,
 * or the queue fails as a whole. A job whose send failed stays parked and leased, so this tick does not
 * lease it again; the next tick after its lease expires sends it again.
 */
export async function sendParkedJobs(
  deps: ParkedJobsDeps,
  options: ParkedJobsOptions,
): Promise<{ sent: number; failed: number }> {
  const totals = { sent: 0, failed: 0 };
  while (deps.clock.now() < options.stopAcquiringAt) {
    const now = deps.clock.now();
    const due = await deps.jobStore.acquireDueJobs(
      options.owner,
      now,
      now + options.lookaheadMs,
      options.leaseMs,
      options.limit,
    );
    if (due.length === 0) break;
    const round = await sendRound(deps, due, options.owner);
    totals.sent += round.sent;
    totals.failed += round.failed;
    // Nothing of several jobs went out: the queue itself is failing; the rest waits for the next tick.
    if (round.sent === 0 && round.failed > 1) break;
  }
  return totals;
}

async function sendRound(
  deps: ParkedJobsDeps,
  due: readonly Job[],
  owner: string,
): Promise<{ sent: number; failed: number }> {
  const now = deps.clock.now();
  const waiting = await waitingInLine(deps, due, now);
  const toSend = due.filter((job) => !waiting.has(job.id));
  const { failed } = await deps.queue.send(toSend.map((job) => parkedJobMessage(job, now)));
  const failedIds = new Set(failed);
  // Sent now, or delivered before and waiting in its line: either way it leaves the index
  const unparked = due.filter((job) => !failedIds.has(job.id));
  await Promise.all(
    unparked.map((job) =>
      deps.jobStore.markJobSent(job.id, owner).catch((error: unknown) => {
        // Sent but still parked: sent again later and dropped at claim as a duplicate.
        deps.logger.warn('parked job sent but not unparked', { jobId: job.id, error });
      }),
    ),
  );
  return { sent: toSend.length - failedIds.size, failed: failedIds.size };
}

/**
 * The ids of `due` jobs, first attempts whose run time came, that wait in their task's line as the
 * creation stored (a job replaced while an earlier creation waited is sent: that entry's claim is refused).
 */
async function waitingInLine(deps: ParkedJobsDeps, due: readonly Job[], now: number): Promise<Set<string>> {
  const delivered = due.filter((job) => job.status === 'queued' && job.runAt <= now);
  const checks = await Promise.all(
    delivered.map(async (job) => ({
      id: job.id,
      waiting: await deps.jobStore
        .isWaiting(job.task, linePosition({ job }), job.createToken)
        .catch(() => false),
    })),
  );
  return new Set(checks.filter((check) => check.waiting).map((check) => check.id));
}
