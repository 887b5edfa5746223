// Written by npm start from the task modules in this folder; do not edit (a test checks it is current).
import type task_http_ping from './http-ping';
import type task_send_report from './send-report';
import type task_slow_task from './slow-task';

/** The tasks of this folder, for the typed client: `new SundialClient<SundialTasks>(…)`. */
export type SundialTasks = {
  'http-ping': typeof task_http_ping;
  'send-report': typeof task_send_report;
  'slow-task': typeof task_slow_task;
};
