import type { EpochMs } from '../../core/clock';
import { type Delivery, wakePassed } from '../../core/delivery/delivery';
import { LIMITS } from '../../core/limits';
import type { JobMessageBody } from '../../core/model/job-message';
import { copyOf, linePosition } from '../../core/ports/waiting-line';
import { wakeDelaySeconds } from '../flow/rate-wake';
import type { Logger } from '../observability/logger';
import type { MessageOutcome, WorkerContext } from './worker-context';

/**
 * A woken delivery that its task's rate refused until `at` keeps its woken entry (and the slot it
 * holds) for that start: the entry is overdue only some while after it (`postponeWoken`), and
 * `message` is sent again with the queue delay that brings it back in the last second before it.
 * When the entry is no longer its own (claimed or given back by another delivery of the job, or
 * carrying a later copy), it goes on without it and joins the line. A failed send keeps the message:
 * it comes back as the queue has it, and the entry is sent again once overdue.
 */
export async function waitForStart(
  ctx: WorkerContext,
  delivery: Delivery,
  message: JobMessageBody,
  at: EpochMs,
  logger: Logger,
): Promise<Delivery | MessageOutcome> {
  const { jobStore, queue, clock } = ctx.deps;
  const copy = delivery.woken;
  if (!copy) throw new Error('a wait for the rate without a wake-up');
  const now = clock.now();
  const position = linePosition(delivery);
  const kept = await jobStore.postponeWoken({ task: delivery.job.task, position, copy, now, until: at });
  if (!kept) return wakePassed(delivery);
  // A start further off than the queue's longest delay is waited for in hops of that delay
  const delaySeconds = Math.min(wakeDelaySeconds(at, now), LIMITS.maxQueueDelaySeconds);
  // As the copy its entry carries (a reclaim may go on as a later attempt): its claim finds the entry
  const { failed } = await queue.send([{ ...message, ...copyOf(copy), delaySeconds }]);
  if (failed.length === 0) return 'done';
  logger.warn('could not send the woken job again for its start; the queue redelivers it', {
    nextStartAt: at,
  });
  return 'retry_later';
}
