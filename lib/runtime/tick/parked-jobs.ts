import type { Clock } from '../../core/clock';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import type { Logger } from '../observability/logger';
import { parkedJobMessage } from '../scheduling/job-messages';

export interface ParkedJobsDeps {
  jobStore: JobStore;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
}

/**
 * Sends the jobs parked in the due index (they wait longer than the queue's 15-minute delay) once they
 * come within the lookahead, then takes them out of the index. A job whose send failed stays parked
 * and leased; the next tick after its lease expires sends it again.
 */
export async function sendParkedJobs(
  deps: ParkedJobsDeps,
  options: { owner: string; lookaheadMs: number; leaseMs: number; limit: number },
): Promise<{ sent: number; failed: number }> {
  const now = deps.clock.now();
  const due = await deps.jobStore.acquireDueJobs(
    options.owner,
    now,
    now + options.lookaheadMs,
    options.leaseMs,
    options.limit,
  );
  if (due.length === 0) return { sent: 0, failed: 0 };
  const { failed } = await deps.queue.send(due.map((job) => parkedJobMessage(job, now)));
  const failedIds = new Set(failed);
  const sent = due.filter((job) => !failedIds.has(job.id));
  await Promise.all(
    sent.map((job) =>
      deps.jobStore.markJobSent(job.id, options.owner).catch((error: unknown) => {
        // Sent but still parked: sent again later and dropped at claim as a duplicate.
        deps.logger.warn('parked job sent but not unparked', { jobId: job.id, error });
      }),
    ),
  );
  return { sent: sent.length, failed: failedIds.size };
}
