import type { JobMessageBody } from '../../core/model/job-message';
import { linePosition, type TaskSlots } from '../../core/ports/waiting-line';
import { takeOwnTurn, type WakeDeps, wakeForFreeSlots } from './wake-line';

/**
 * Puts a job that found no free slot in its task's line; its message may then go (the line holds
 * it). Afterwards the counter is read again: a slot given back between the failed take and the join
 * woke nobody (the line looked empty to its waker), so this wakes the line for it. Either the waker
 * saw the entry or this read sees the slot: both are strongly consistent. With `takeOwnTurn` (the
 * caller holds the job's message and can claim it), the job wakes only itself (`takeOwnTurn` in
 * wake-line) and `ownTurn` says whether it left the line to be claimed at once.
 */
export async function joinWaitingLine(
  deps: WakeDeps,
  message: JobMessageBody,
  options: { takeOwnTurn?: boolean } = {},
): Promise<{ slots: TaskSlots | undefined; ownTurn: boolean }> {
  await deps.jobStore.joinLine({ message, now: deps.clock.now() });
  try {
    const slots = await deps.jobStore.taskSlots(message.job.task);
    if (!slots) return { slots, ownTurn: false };
    if (!options.takeOwnTurn) {
      await wakeForFreeSlots(deps, slots);
      return { slots, ownTurn: false };
    }
    return { slots, ownTurn: await takeOwnTurn(deps, slots, linePosition(message)) };
  } catch (error) {
    deps.logger.warn('could not check for a slot freed while joining the line; the tick wakes it', {
      error,
    });
    return { slots: undefined, ownTurn: false };
  }
}
