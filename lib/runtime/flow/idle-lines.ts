import type { TaskSlots } from '../../core/ports/waiting-line';
import type { TaskLimits } from '../task-limits';
import { type WakeDeps, wakeForFreeSlots } from './wake-line';

/**
 * The tick's fallback for lost wake-ups (a worker that died between giving its slot back and waking
 * the next job): every task with free slots gets as many of its waiting jobs woken. A line is woken
 * within one tick of a slot coming free. Returns how many jobs were woken.
 *
 * With `limits` (each task's limits as deployed), free slots are counted against those rather than the
 * counter's snapshot of the last claim's: a limit raised (or removed) by a deploy wakes the line at once,
 * where the snapshot kept it waiting until a run ended or a job arrived.
 */
export async function wakeIdleLines(
  deps: WakeDeps,
  limits: ReadonlyMap<string, TaskLimits> | null = null,
): Promise<number> {
  const tasks = await deps.jobStore.allTaskSlots();
  const woken = await Promise.all(
    tasks.map((slots) => wakeForFreeSlots(deps, limits === null ? slots : asDeployed(slots, limits))),
  );
  return woken.reduce((sum, count) => sum + count, 0);
}

function asDeployed(slots: TaskSlots, limits: ReadonlyMap<string, TaskLimits>): TaskSlots {
  const deployed = limits.get(slots.task);
  const { rateLimit: _snapshot, ...rest } = slots;
  return {
    ...rest,
    limit: deployed?.maxRunningJobs ?? null,
    ...(deployed?.rateLimit && { rateLimit: deployed.rateLimit }),
  };
}
