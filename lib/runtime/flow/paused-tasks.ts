import type { Clock } from '../../core/clock';
import type { JobStore } from '../../core/ports/job-store';

/** How stale a worker's view of the paused tasks may be, for tasks without `maxRunningJobs`. */
export const PAUSED_TASKS_REFRESH_MS = 5_000;

/**
 * Which tasks are paused, as one warm worker sees them: read from the task counters at most every
 * `PAUSED_TASKS_REFRESH_MS`. A task with `maxRunningJobs` needs none of this (its slot take checks the
 * flag in the same write); a task without one claims with a single write, which cannot read another item,
 * so its pause reaches a worker within this refresh.
 */
export class PausedTasks {
  private paused = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  async isPaused(store: Pick<JobStore, 'allTaskSlots'>, clock: Clock, task: string): Promise<boolean> {
    if (clock.now() - this.readAt >= PAUSED_TASKS_REFRESH_MS) {
      this.reading ??= this.refresh(store, clock).finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.paused.has(task);
  }

  /** A strongly consistent read found the task not paused: trust it over the cached view. */
  resumed(task: string): void {
    this.paused.delete(task);
  }

  private async refresh(store: Pick<JobStore, 'allTaskSlots'>, clock: Clock): Promise<void> {
    const readAt = clock.now();
    const slots = await store.allTaskSlots();
    this.paused = new Set(slots.filter((slot) => slot.paused).map((slot) => slot.task));
    this.readAt = readAt;
  }
}
