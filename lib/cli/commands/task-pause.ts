import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';

export const pauseTaskCommand = adminCommand({
  name: 'pause',
  summary: 'stop starting jobs of a task: they wait in its line until resumed',
  description: `Pauses a task (admin API pause_task): no job of it starts until resumed; jobs and fires that come due
wait in the task's line, keeping their run times and misfire grace. Runs already started go on. Idempotent.`,
  examples: ['sundial tasks pause send-report'],
  declare: (command) => command.argument('<task>', 'the task id'),
  async execute({ args: [task], admin, print }) {
    const result = await callAdmin(await admin(), 'pause_task', { task });
    print(
      result,
      () =>
        `Paused task '${task}' (${result.task.waiting} waiting). Resume it with: sundial tasks resume ${task}`,
    );
    return undefined;
  },
});

export const resumeTaskCommand = adminCommand({
  name: 'resume',
  summary: 'resume a paused task: its waiting jobs start in order',
  description: `Resumes a task (admin API resume_task): its waiting jobs start in line order (priority, then run time),
as many at once as it has free slots.`,
  examples: ['sundial tasks resume send-report'],
  declare: (command) => command.argument('<task>', 'the task id'),
  async execute({ args: [task], admin, print }) {
    const result = await callAdmin(await admin(), 'resume_task', { task });
    print(
      result,
      () => `Resumed task '${task}': ${result.woken_jobs} woken, ${result.task.waiting} waiting.`,
    );
    return undefined;
  },
});
