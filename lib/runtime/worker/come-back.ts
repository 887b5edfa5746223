import { LIMITS } from '../../core/limits';
import type { Logger } from '../observability/logger';
import { attemptWaitSeconds } from './backoff';
import type { Received } from './received';
import type { MessageOutcome, WorkerContext } from './worker-context';

/** Hides the message for a growing, jittered while and reports it failed, so the queue redelivers it. */
export function comeBackLater(
  ctx: WorkerContext,
  message: Received,
  logger: Logger,
): Promise<MessageOutcome> {
  return comeBackAfter(ctx, message, attemptWaitSeconds(message.receiveCount, ctx.deps.random), logger);
}

/** Hides the message for `seconds` and reports it failed, so the queue redelivers it then. */
export async function comeBackAfter(
  ctx: WorkerContext,
  message: Received,
  seconds: number,
  logger: Logger,
): Promise<MessageOutcome> {
  ctx.counters.deferred += 1;
  try {
    await message.hide(Math.min(LIMITS.maxVisibilityTimeoutSeconds, Math.max(1, seconds)));
  } catch (error) {
    logger.warn('could not change the message visibility; it comes back after the queue default', { error });
  }
  return 'retry_later';
}
