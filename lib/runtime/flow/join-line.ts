import type { JobMessageBody } from '../../core/model/job-message';
import type { TaskSlots } from '../../core/ports/waiting-line';
import { type WakeDeps, wakeForFreeSlots } from './wake-line';

/**
 * Puts a job that found no free slot in its task's line; its message may then go (the line holds
 * it). Afterwards the counter is read again: a slot given back between the failed take and the join
 * woke nobody (the line looked empty to its waker), so this wakes the line for it. Either the waker
 * saw the entry or this read sees the slot: both are strongly consistent.
 */
export async function joinWaitingLine(
  deps: WakeDeps,
  message: JobMessageBody,
): Promise<TaskSlots | undefined> {
  await deps.jobStore.joinLine({ message, now: deps.clock.now() });
  try {
    const slots = await deps.jobStore.taskSlots(message.job.task);
    if (slots) await wakeForFreeSlots(deps, slots);
    return slots;
  } catch (error) {
    deps.logger.warn('could not check for a slot freed while joining the line; the tick wakes it', {
      error,
    });
    return undefined;
  }
}
