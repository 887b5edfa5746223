import type { Received } from './received';
import type { MessageOutcome, WorkerContext } from './worker-context';

/**
 * A message that is not a job message: moved to the dead-letter queue and deleted from the jobs queue
 * when a DLQ is configured (`SUNDIAL_DEAD_LETTER_QUEUE_URL`); otherwise, or when that send fails, left
 * to the jobs queue, whose redrive policy moves it after `maxReceiveCount` receives. The log names the
 * message and the fields that were wrong, never their values.
 */
export async function handleUnreadableMessage(
  ctx: WorkerContext,
  message: Received,
  reason: string,
): Promise<MessageOutcome> {
  ctx.counters.unreadable += 1;
  const { logger, deadLetters } = ctx.deps;
  const fields = {
    messageId: message.messageId,
    receiveCount: message.receiveCount,
    reason,
  };
  if (!deadLetters) {
    logger.error(
      'unreadable job message: left to the queue, whose redrive policy moves it to the DLQ',
      fields,
    );
    return 'retry_later';
  }
  try {
    await deadLetters.deadLetter({ body: message.body, messageId: message.messageId, reason });
  } catch (error) {
    logger.error('unreadable job message: moving it to the DLQ failed; left to the redrive policy', {
      ...fields,
      error,
    });
    return 'retry_later';
  }
  logger.error('unreadable job message moved to the DLQ', fields);
  return 'done';
}
