import type { TaskSlots, WokenEntry } from '../../core/ports/waiting-line';
import { type WakeOptions, wakeForNextStart } from './rate-wake';
import { sendWoken, type WakeDeps } from './woken';

/** How many jobs of a task without `maxRunningJobs` one call wakes (its line exists only from a pause). */
const UNLIMITED_WAKE_BATCH = 500;

/**
 * Wakes what the task's line may start now and sends their messages: as many jobs as free slots
 * (`wakeFreeSlots`); for a rate-limited task, one for its next start. How a resumed task starts again
 * and the tick's repair. Returns how many were sent.
 */
export async function wakeLine(
  deps: WakeDeps,
  slots: TaskSlots,
  options: WakeOptions & { limit?: number | null } = {},
): Promise<number> {
  if (slots.rateLimit) return wakeForNextStart(deps, slots, options);
  return sendWoken(deps, await wakeFreeSlots(deps, slots, options));
}

/**
 * Wakes as many waiting jobs as the task has free slots, each taking its slot in the same step as it
 * leaves the line (`wakeHeads`); for a task without a slot limit whose pause ended, the whole line.
 * Their messages are the caller's to send. `limit`: the task's limit as deployed, when known (the
 * counter's is the last claim's).
 */
export async function wakeFreeSlots(
  deps: WakeDeps,
  slots: TaskSlots,
  options: { limit?: number | null } = {},
): Promise<WokenEntry[]> {
  if (slots.paused) return [];
  const limit = options.limit === undefined ? slots.limit : options.limit;
  const now = deps.clock.now();
  if (limit === null)
    return deps.jobStore.wakeHeads({ task: slots.task, now, count: UNLIMITED_WAKE_BATCH, take: 'none' });
  const count = limit - slots.running;
  return count > 0 ? deps.jobStore.wakeHeads({ task: slots.task, now, count, take: 'slot', limit }) : [];
}
