import type { Clock, EpochMs } from '../../core/clock';
import { LIMITS } from '../../core/limits';
import { planSendPhases } from '../../core/planning';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';
import { sendOrReportAllFailed } from '../scheduling/dispatch';

export interface SendPhasing {
  /** The earliest a message may reach the queue's consumers before its run time (ms); 0 sends at once. */
  toleranceMs: number;
  /** Sends that start at or after this instant are made at once (the worker waits out the sub-second rest). */
  phasesUntil: EpochMs;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
}

/**
 * The latest a message is delivered before its run time: room for the send request itself and a timer
 * that wakes a few ms late (a message delivered after its run time would start late).
 */
const LEAD_MS = 10;

/**
 * A send waits up to a second for its phases, and the tick's next round waits with it. The tick reads
 * schedules earliest first, so when this round's latest schedule fires sooner than this, the next
 * round's first fires may be due in a moment: the round is sent at once instead.
 */
const MIN_AHEAD_FOR_PHASES_MS = 5_000;

/** The latest of the messages' schedules' first run times (the next round's fires come no earlier). */
function latestFirstRunAt(messages: readonly JobMessage[]): number {
  const firstRunAt = new Map<string, number>();
  for (const { job } of messages) {
    const key = job.scheduleId ?? job.id;
    firstRunAt.set(key, Math.min(firstRunAt.get(key) ?? job.runAt, job.runAt));
  }
  return Math.max(Number.NEGATIVE_INFINITY, ...firstRunAt.values());
}

/**
 * A queue that sends each message at the sub-second phase where its whole-second delay ends just before
 * its run time (`planSendPhases`), so the worker waits tens of ms for it instead of up to a second.
 * Messages of one phase are sent together (batches stay full); a message already due is sent at once,
 * and so is a round whose schedules fire within 5 s (waiting would hold back the next round's fires).
 * A send waits at most a second; from `phasesUntil` on (a tick with a long backlog: each of its rounds
 * would wait up to a second), messages are sent at once and the worker waits out the rest.
 */
export function phasedJobQueue(queue: JobQueue, phasing: SendPhasing): JobQueue {
  const { clock, sleep } = phasing;
  const options = {
    toleranceMs: phasing.toleranceMs,
    leadMs: Math.min(LEAD_MS, Math.floor(phasing.toleranceMs / 2)),
    maxDelaySeconds: LIMITS.maxQueueDelaySeconds,
  };
  return {
    async send(messages) {
      const now = clock.now();
      const soon = latestFirstRunAt(messages) - now < MIN_AHEAD_FOR_PHASES_MS;
      if (phasing.toleranceMs <= 0 || now >= phasing.phasesUntil || soon) return queue.send(messages);
      const groups = planSendPhases(messages, (message) => message.job.runAt, now, options);
      // Each group's send starts at its phase without waiting for the sends before it.
      const sends: Promise<string[]>[] = [];
      for (const group of groups) {
        const wait = group.sendAt - clock.now();
        if (wait > 0) await sleep(wait);
        // A throw fails this group alone (the others may already be sent).
        sends.push(
          sendOrReportAllFailed(
            queue,
            group.items.map(({ item, delaySeconds }) => ({ ...item, delaySeconds })),
          ),
        );
      }
      const failed = await Promise.all(sends);
      return { failed: failed.flat() };
    },
    changeVisibility: (receiptHandle, timeoutSeconds) =>
      queue.changeVisibility(receiptHandle, timeoutSeconds),
  };
}
