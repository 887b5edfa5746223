import type { Job } from '../../../core/model/job';
import { type TaskWait, taskWaits } from '../../../core/model/task-waits';
import type { ActionContext } from '../context';

/**
 * What the jobs that have not started (queued, retrying) wait on: the limits of their tasks without
 * room now, by task (one read of each such task's slots).
 */
export async function waitsByTask(
  context: ActionContext,
  jobs: readonly Job[],
): Promise<ReadonlyMap<string, TaskWait[]>> {
  const tasks = [...new Set(jobs.filter(notStarted).map((job) => job.task))];
  const entries = await Promise.all(
    tasks.map(async (task): Promise<[string, TaskWait[]]> => {
      const slots = await context.deps.jobStore.taskSlots(task);
      const definition = context.deps.tasks.get(task)?.definition;
      return [task, taskWaits(slots, definition?.maxRunningJobs, context.now)];
    }),
  );
  return new Map(entries);
}

/** The waits of `job` (none for a job that started or ended). */
export function waitsOf(waits: ReadonlyMap<string, TaskWait[]>, job: Job): TaskWait[] {
  return notStarted(job) ? (waits.get(job.task) ?? []) : [];
}

function notStarted(job: Job): boolean {
  return job.status === 'queued' || job.status === 'retrying';
}
