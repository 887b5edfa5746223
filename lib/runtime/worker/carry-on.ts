import type { SQSRecord } from 'aws-lambda';
import { LIMITS } from '../../core/limits';
import { encodeJobMessage } from '../../core/model/job-message';
import type { WokenEntry } from '../../core/ports/waiting-line';
import { deliver } from './deliver';
import { queuedMessage } from './received';
import type { MessageOutcome, WorkerContext } from './worker-context';

/** When a carried delivery's message must come back and its delivery named no delay (it kept it). */
const KEPT_CARRIED_DELAY_SECONDS = 1;

/**
 * Delivers a queued message and the woken jobs its delivery carries on: a run that ends handing its
 * slot to its line's head runs that job in this invocation at once, beside the rest of its delivery
 * (ADR 0009), so a backlog's next start costs no message's travel. Resolves once all have ended.
 */
export async function deliverCarryingOn(ctx: WorkerContext, record: SQSRecord): Promise<MessageOutcome> {
  const carried: Promise<void>[] = [];
  const chain: WorkerContext = {
    ...ctx,
    carryOn: (woken) => void carried.push(deliverCarried(chain, woken)),
  };
  const outcome = await deliver(chain, queuedMessage(ctx.deps.queue, record));
  // A carried delivery may carry on another: the list grows while it is awaited.
  for (let index = 0; index < carried.length; index += 1) await carried[index];
  return outcome;
}

/**
 * Delivers a carried woken job as its message would have been. What would have come back from the
 * queue (a delivery that hid or kept its message) is sent to the queue, with the delay it asked for.
 */
async function deliverCarried(ctx: WorkerContext, woken: WokenEntry): Promise<void> {
  const message = { ...woken.message, woken: true as const };
  let comeBackSeconds = KEPT_CARRIED_DELAY_SECONDS;
  const outcome = await deliver(ctx, {
    messageId: `carried:${woken.position}`,
    body: encodeJobMessage(message),
    receiveCount: 1,
    hide: async (seconds) => {
      comeBackSeconds = seconds;
    },
  });
  if (outcome === 'done') return;
  const delaySeconds = Math.min(LIMITS.maxQueueDelaySeconds, Math.max(0, Math.ceil(comeBackSeconds)));
  const sent = await ctx.deps.queue.send([{ ...message, delaySeconds }]).then(
    ({ failed }) => failed.length === 0,
    () => false,
  );
  if (!sent) {
    ctx.deps.logger.warn(
      'could not send a carried job back to the queue; its woken entry or its lease brings it back',
      { jobId: woken.message.job.id },
    );
  }
}
