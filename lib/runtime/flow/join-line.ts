import type { JobMessageBody } from '../../core/model/job-message';
import { linePosition, sameCopy, type TaskSlots, type WokenEntry } from '../../core/ports/waiting-line';
import { wakeForNextStart } from './rate-wake';
import { wakeFreeSlots } from './wake-line';
import { resendOverdueWoken, sendWoken, type WakeDeps } from './woken';

/**
 * Puts a job that found no free slot in its task's line; its message may then go (the line holds it).
 * The join answers with the counter as it stands once the entry is in: a slot given back between the
 * failed take and the join is free there, and this wakes the line for it (a slot goes back only while
 * nobody joined since its giver read the line: either it saw this entry or this sees the slot). When
 * this job is among those woken and its entry carries this copy, it takes its own turn (`ownTurn`):
 * the caller, whose message stays in the queue until it is done, claims it at once with the slot it
 * was handed instead of waking it through the queue; unless it may not take a turn now (`mayTakeTurn:
 * false`), when it is woken through the queue like the others. The
 * line's overdue wake-ups are sent again on the way (ADR 0009: whoever touches the task repairs them).
 */
export async function joinWaitingLine(
  deps: WakeDeps,
  message: JobMessageBody,
  options: { mayTakeTurn: boolean } = { mayTakeTurn: true },
): Promise<{ slots: TaskSlots | undefined; ownTurn: boolean }> {
  const { task } = message.job;
  const slots = await deps.jobStore.joinLine({ message, now: deps.clock.now() });
  if (!slots) return { slots, ownTurn: false };
  try {
    await resendOverdueWoken(deps, task);
    if (slots.rateLimit) {
      await wakeForNextStart(deps, slots);
      return { slots, ownTurn: false };
    }
    const woken = await wakeFreeSlots(deps, slots);
    const own = options.mayTakeTurn ? linePosition(message) : undefined;
    // Its own turn only while the entry carries its copy: one that kept another copy of the job (a
    // newer revision's) is woken through the queue with that copy, which alone can claim it
    const isOwnTurn = (entry: WokenEntry) =>
      entry.position === own && !entry.movedIn && sameCopy(entry.message, message);
    await sendWoken(
      deps,
      woken.filter((entry) => !isOwnTurn(entry)),
    );
    return { slots, ownTurn: woken.some(isOwnTurn) };
  } catch (error) {
    deps.logger.warn('could not check for a slot freed while joining the line; the tick wakes it', {
      error,
    });
    return { slots: undefined, ownTurn: false };
  }
}
