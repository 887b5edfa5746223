import type { SQSRecord } from 'aws-lambda';
import type { JobQueue } from '../../core/ports/job-queue';

/**
 * A message the worker handles: one its queue delivered, or a woken job this invocation carries on
 * (`carry-on.ts`), which no queue holds. `hide` is how a message comes back later: a queued one is hidden
 * for `seconds` (and reported failed, so the queue delivers it again then); a carried one is sent to the
 * queue with that delay once its delivery is over.
 */
export interface Received {
  readonly messageId: string;
  readonly body: string;
  /** How many times the queue has delivered it (1 for a carried message). */
  readonly receiveCount: number;
  hide(seconds: number): Promise<void>;
}

export function queuedMessage(queue: JobQueue, record: SQSRecord): Received {
  return {
    messageId: record.messageId,
    body: record.body,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? '1') || 1,
    hide: (seconds) => queue.changeVisibility(record, seconds),
  };
}
