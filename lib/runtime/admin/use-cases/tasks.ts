import { listTasksParams } from '../../../core/admin-contract/tasks';
import { TASK_DEFAULTS } from '../../tasks/define-task';
import type { ActionHandler } from '../context';
import { wireTask } from '../protocol/wire-task';
import { InputCheck } from '../validation/input-check';

/** `list_tasks`: every registered task with its options and the jobs it has running now. */
export const listTasks: ActionHandler<'list_tasks'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  check.valid({ params: check.params(listTasksParams, raw) });
  const running = await context.deps.jobStore.runningCounts();
  const defaultTtl = context.deps.defaultResultTtlSeconds ?? TASK_DEFAULTS.resultTtlSeconds;
  return {
    tasks: context.deps.tasks.all().map((task) => wireTask(task, running.get(task.id) ?? 0, defaultTtl)),
  };
};
