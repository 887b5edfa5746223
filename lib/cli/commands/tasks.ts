import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import { renderTaskTable } from '../format/jobs';
import { commandGroup } from '../group';
import { pauseTaskCommand, resumeTaskCommand } from './task-pause';

const listTasksCommand = adminCommand({
  name: 'list',
  summary: 'list the deployed tasks, their running and waiting jobs and options',
  description: `Every deployed task (admin API list_tasks): jobs running now against its maxRunningJobs limit, its rate limit,
jobs waiting in its line, whether it is paused, timeout, misfire grace, retries, how long results are kept, events, and whether it checks payloads.`,
  examples: ['sundial tasks list', 'sundial tasks list --json'],
  declare: (command) => command,
  async execute({ admin, print }) {
    const result = await callAdmin(await admin(), 'list_tasks', {});
    print(result, () => renderTaskTable(result.tasks));
    return undefined;
  },
});

export const tasksCommand = commandGroup({
  name: 'tasks',
  summary: 'list, pause and resume the deployed tasks (modules in functions/)',
  description: 'Tasks are the handler modules in functions/; their id is the file name.',
  subcommands: [listTasksCommand, pauseTaskCommand, resumeTaskCommand],
});
