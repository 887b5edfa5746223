import type { Delivery } from '../../core/delivery/delivery';
import { linePosition } from '../../core/ports/waiting-line';
import { wakeForNextStart } from '../flow/rate-wake';
import { resendOverdueWoken } from '../flow/woken';
import type { Logger } from '../observability/logger';
import { carriesOn, wakeHandedOn } from './hand-on';
import type { WorkerContext } from './worker-context';

/**
 * A woken delivery that does not run gives its woken entry back (ADR 0009): the slot it was handed
 * goes to the next job in line, woken in the same step (run next here, or its message sent), or back
 * to the counter when nobody waits or the task is paused; the task's overdue woken entries are sent on
 * the way, as after a run's end. A rate-limited task's wake-up was for a start this job does not take:
 * the line is woken for it again. On failure the entry stays woken, slot and all, and is sent again
 * once overdue.
 */
export async function passWakeOn(ctx: WorkerContext, delivery: Delivery, logger: Logger): Promise<void> {
  const { jobStore, clock } = ctx.deps;
  const { task } = delivery.job;
  const copy = delivery.woken;
  if (!copy) return;
  try {
    const release = await jobStore.releaseWoken({
      task,
      position: linePosition(delivery),
      copy,
      now: clock.now(),
      carriedOn: carriesOn(ctx, task),
    });
    if (release.status === 'handed') await wakeHandedOn(ctx, release.woken);
    // The slot's way back may have moved a later copy into a woken entry, overdue at once
    if (release.status !== 'gone') await resendOverdueWoken(ctx.deps, task);
    if (delivery.task?.rateLimit) {
      const slots = await jobStore.taskSlots(task);
      if (slots) await wakeForNextStart(ctx.deps, slots, { passOn: true });
    }
  } catch (error) {
    logger.warn('could not pass the wake-up on; it is sent again once overdue', { error });
  }
}
