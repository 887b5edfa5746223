import type { EpochMs } from '../clock';
import type { TaskSlots } from '../ports/waiting-line';

/** A limit of a job's task that has no room now: what a job that has not started waits on. */
export type TaskWait =
  | { constraint: 'paused' }
  | { constraint: 'max_running_jobs'; running: number; limit: number }
  | { constraint: 'rate_limit'; nextStartAt: EpochMs };

/**
 * The limits of a task without room at `now`, from its slots as stored and its `maxRunningJobs` as
 * defined (the stored limit when the definition is unknown): paused, every slot taken, or the rate's
 * next start still to come. Empty when the task has no slots item (no limited job ran, never paused).
 */
export function taskWaits(
  slots: TaskSlots | undefined,
  maxRunningJobs: number | null | undefined,
  now: EpochMs,
): TaskWait[] {
  if (!slots) return [];
  const waits: TaskWait[] = [];
  if (slots.paused) waits.push({ constraint: 'paused' });
  const limit = maxRunningJobs === undefined ? slots.limit : maxRunningJobs;
  if (limit !== null && slots.running >= limit) {
    waits.push({ constraint: 'max_running_jobs', running: slots.running, limit });
  }
  if (slots.nextStartAt !== undefined && slots.nextStartAt > now) {
    waits.push({ constraint: 'rate_limit', nextStartAt: slots.nextStartAt });
  }
  return waits;
}
