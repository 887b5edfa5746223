import type { TaskSlots } from '../../core/ports/waiting-line';
import type { TaskLimits } from '../task-limits';
import { wakeLine } from './wake-line';
import { resendOverdueWoken, type WakeDeps } from './woken';

/**
 * The tick's repair of every task's line (ADR 0009): woken jobs whose messages are overdue are sent
 * again (a sender that crashed, a send that failed), and a task with free slots and waiting jobs (a
 * limit raised by a deploy, a rate's next start nobody woke a job for) gets them woken. Returns how
 * many jobs were sent.
 *
 * With `limits` (each task's limits as deployed), free slots are counted against those rather than the
 * counter's snapshot of the last claim's: a limit raised (or removed) by a deploy wakes the line at once,
 * where the snapshot kept it waiting until a run ended or a job arrived.
 */
export async function repairLines(
  deps: WakeDeps,
  limits: ReadonlyMap<string, TaskLimits> | null = null,
): Promise<number> {
  const tasks = await deps.jobStore.allTaskSlots();
  const sent = await Promise.all(
    tasks.map(async (slots) => {
      const resent = await resendOverdueWoken(deps, slots.task);
      return resent + (await wakeLine(deps, limits === null ? slots : asDeployed(slots, limits)));
    }),
  );
  return sent.reduce((sum, count) => sum + count, 0);
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
