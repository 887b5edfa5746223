import { commandGroup } from '../../group';
import { addScheduleCommand, updateScheduleCommand } from './add-update';
import { planSchedulesCommand } from './plan';
import { getScheduleCommand, listSchedulesCommand, previewScheduleCommand } from './read';
import {
  pauseScheduleCommand,
  removeScheduleCommand,
  resumeScheduleCommand,
  runScheduleCommand,
} from './state';

export const schedulesCommand = commandGroup({
  name: 'schedules',
  summary: 'add, list, change, pause, resume, remove, preview and run schedules; plan those declared in code',
  description: `Manages schedules through the admin API: the local platform (npm start) when it answers,
else the deployed stack. Every subcommand takes --json for scripts.`,
  subcommands: [
    addScheduleCommand,
    listSchedulesCommand,
    getScheduleCommand,
    updateScheduleCommand,
    pauseScheduleCommand,
    resumeScheduleCommand,
    removeScheduleCommand,
    previewScheduleCommand,
    runScheduleCommand,
    planSchedulesCommand,
  ],
});
