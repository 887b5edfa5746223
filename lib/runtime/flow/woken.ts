import type { Clock } from '../../core/clock';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import type { WokenEntry } from '../../core/ports/waiting-line';
import type { Logger } from '../observability/logger';

export interface WakeDeps {
  jobStore: JobStore;
  queue: JobQueue;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Sends the messages of woken entries (marked woken: their claims take the slot they were handed). A
 * send that fails leaves its entry woken, slot and all: it is sent again once overdue
 * (`resendOverdueWoken`), never lost. Returns how many were sent.
 */
export async function sendWoken(
  deps: WakeDeps,
  woken: readonly WokenEntry[],
  delaySeconds = 0,
): Promise<number> {
  if (woken.length === 0) return 0;
  const { failed } = await deps.queue.send(
    woken.map((entry) => ({ ...entry.message, delaySeconds, woken: true as const })),
  );
  if (failed.length > 0) {
    deps.logger.warn('could not send woken jobs; they are sent again once overdue', {
      task: woken[0]?.task,
      failed: failed.length,
    });
  }
  return woken.length - failed.length;
}

/**
 * Sends again the messages of the task's woken entries whose messages are overdue (their sender
 * crashed, its send failed, or its answer was lost): each keeps its slot meanwhile, so nothing else
 * could take it. Each resend is taken first (`markWokenResent`), so that of the workers and ticks that
 * find an entry overdue at once, one sends it: resent by all, a message still on its way in a busy
 * queue multiplied there. A duplicate message is dropped at claim. Returns how many were sent.
 */
export async function resendOverdueWoken(deps: WakeDeps, task: string): Promise<number> {
  const now = deps.clock.now();
  const overdue = await deps.jobStore.overdueWoken(task, now);
  if (overdue.length === 0) return 0;
  const taken = await Promise.all(overdue.map((entry) => deps.jobStore.markWokenResent(entry, now)));
  return sendWoken(
    deps,
    overdue.filter((_, index) => taken[index]),
  );
}
