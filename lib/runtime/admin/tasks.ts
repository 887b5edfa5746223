import { TASK_DEFAULTS } from '../tasks/define-task';
import type { ActionContext } from './context';
import { InputCheck } from './input-check';
import { listTasksParams } from './schemas';
import { wireTask } from './wire';

/** `list_tasks`: every registered task with its options and the jobs it has running now. */
export async function listTasks(raw: Record<string, unknown>, context: ActionContext) {
  const check = new InputCheck(context.deps.tasks);
  check.valid({ params: check.params(listTasksParams, raw) });
  const running = await context.deps.jobStore.runningCounts();
  const defaultTtl = context.deps.defaultResultTtlSeconds ?? TASK_DEFAULTS.resultTtlSeconds;
  return {
    tasks: context.deps.tasks.all().map((task) => wireTask(task, running.get(task.id) ?? 0, defaultTtl)),
  };
}
