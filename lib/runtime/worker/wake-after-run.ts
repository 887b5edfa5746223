import type { WakeOptions } from '../flow/rate-wake';
import { wakeForFreeSlots, wakeNextWaitingJob } from '../flow/wake-line';
import type { Logger } from '../observability/logger';
import type { WorkerContext } from './worker-context';

/** A slot came back: the next waiting job is woken (a lost wake-up is the tick's to make up). */
export async function wakeAfterSlotReturned(ctx: WorkerContext, task: string, logger: Logger): Promise<void> {
  try {
    await wakeNextWaitingJob(ctx.deps, task);
  } catch (error) {
    logger.warn('could not wake the next waiting job; the tick wakes it', { error });
  }
}

/** Wakes as many waiting jobs as the task has free slots (none when a wake-up is on its way for each). */
export async function wakeForFreeSlotsOf(
  ctx: WorkerContext,
  task: string,
  logger: Logger,
  options: WakeOptions = {},
): Promise<void> {
  try {
    const slots = await ctx.deps.jobStore.taskSlots(task);
    if (slots) await wakeForFreeSlots(ctx.deps, slots, options);
  } catch (error) {
    logger.warn('could not pass a wake-up on; the tick wakes the line', { error });
  }
}
