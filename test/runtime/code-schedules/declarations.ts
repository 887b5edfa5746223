import type { AppScheduleDeclaration } from '../../../lib/core/code-schedules/declaration';

/** Schedules the tests declare in the CDK app: `morning` of `send-report` (payload `{ team }`), and two of `cleanup`. */
export const morning = (team = 'ops', cron = '0 9 * * *'): AppScheduleDeclaration => ({
  id: 'morning',
  task: 'send-report',
  trigger: cron,
  timezone: 'Europe/Berlin',
  payload: { team },
});

export const hourly: AppScheduleDeclaration = {
  id: 'hourly',
  task: 'cleanup',
  trigger: { type: 'interval', hours: 1 },
};

export const nightly: AppScheduleDeclaration = { id: 'nightly', task: 'cleanup', trigger: '0 3 * * *' };
