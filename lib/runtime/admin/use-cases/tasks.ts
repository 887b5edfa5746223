import { listTasksParams, taskIdParams } from '../../../core/admin-contract/tasks';
import type { TaskSlots } from '../../../core/ports/waiting-line';
import { wakeLine } from '../../flow/wake-line';
import { TASK_DEFAULTS } from '../../tasks/define-task';
import type { ActionContext, ActionHandler } from '../context';
import type { RegisteredTask } from '../deps';
import { type TaskState, wireTask } from '../protocol/wire-task';
import { InputCheck } from '../validation/input-check';

/** `list_tasks`: every registered task with its options, its running and waiting jobs, and whether it is paused. */
export const listTasks: ActionHandler<'list_tasks'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  check.valid({ params: check.params(listTasksParams, raw) });
  const { jobStore } = context.deps;
  const slots = new Map((await jobStore.allTaskSlots()).map((slot) => [slot.task, slot]));
  const tasks = context.deps.tasks.all();
  const waiting = await Promise.all(tasks.map((task) => jobStore.waitingCount(task.id)));
  return {
    tasks: tasks.map((task, index) => shown(task, context, stateOf(slots.get(task.id), waiting[index] ?? 0))),
  };
};

/**
 * `pause_task`: from now on no job of the task starts; jobs that come due wait in its line (keeping
 * their run times and misfire grace). Runs already started go on.
 */
export const pauseTask: ActionHandler<'pause_task'> = async (raw, context) => {
  const task = validTask(raw, context);
  const slots = await context.deps.jobStore.setTaskPaused(task.id, true);
  return { task: shown(task, context, stateOf(slots, await context.deps.jobStore.waitingCount(task.id))) };
};

/** `resume_task`: jobs start again; as many waiting jobs as the task has free slots are woken at once. */
export const resumeTask: ActionHandler<'resume_task'> = async (raw, context) => {
  const task = validTask(raw, context);
  const { jobStore } = context.deps;
  const slots = await jobStore.setTaskPaused(task.id, false);
  // Counted before the wake: the answer is the task at its resume, the woken jobs still waiting in it,
  // whether or not a worker has started one by the time the wake returns.
  const waiting = await jobStore.waitingCount(task.id);
  // The counter knows the limits only once a limited job has run; the task's definition knows them now.
  const limit = task.definition.maxRunningJobs ?? slots.limit;
  const rateLimit = task.definition.rateLimit ?? slots.rateLimit;
  // Passed on: a wake-up booked before the pause may have been spent by a job that found it paused
  const woken = await wakeLine(
    context.deps,
    { ...slots, limit, ...(rateLimit && { rateLimit }) },
    { passOn: true },
  );
  return {
    task: shown(task, context, stateOf(slots, waiting)),
    woken_jobs: woken,
  };
};

function validTask(raw: Record<string, unknown>, context: ActionContext): RegisteredTask {
  const check = new InputCheck(context.deps.tasks);
  const params = check.params(taskIdParams, raw);
  return check.valid({ task: check.task(params?.task) }).task;
}

function stateOf(slots: TaskSlots | undefined, waiting: number): TaskState {
  return { running: slots?.running ?? 0, waiting, paused: slots?.paused ?? false };
}

function shown(task: RegisteredTask, context: ActionContext, state: TaskState) {
  return wireTask(task, state, context.deps.defaultResultTtlSeconds ?? TASK_DEFAULTS.resultTtlSeconds);
}
