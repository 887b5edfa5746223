import * as z from 'zod';
import { defineTask } from '../lib/runtime/sdk';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Prepares a team's activity report for the period that ended at the fire time (or at `until`, to
 * prepare a past period again; a job run by hand without it ends the period now). Delivery is left to
 * you (an e-mail or chat API call goes where the comment says): the example returns the summary that
 * the job's result keeps. Its weekday schedule is declared here, in code: `cdk deploy` and `npm start`
 * create it (and change or remove it when this list changes).
 */
export default defineTask({
  payloadSchema: z.object({
    team: z.string().min(1),
    period: z.enum(['daily', 'weekly']).default('daily'),
    recipients: z.array(z.email()).min(1),
    until: z.iso.datetime({ offset: true }).optional(),
  }),
  timeoutSeconds: 60,
  retry: { maxAttempts: 3, backoffSeconds: 30 },
  events: 'all',
  schedules: [
    {
      id: 'ops-weekday-report',
      trigger: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      payload: { team: 'ops', recipients: ['ops@example.com'] },
      description: "The ops team's report, each weekday morning",
    },
  ],
  handler({ team, period, recipients, until: periodEnd }, { fireTime, logger }) {
    const until = periodEnd === undefined ? (fireTime ?? new Date()) : new Date(periodEnd);
    const from = new Date(until.getTime() - (period === 'daily' ? DAY_MS : 7 * DAY_MS));
    // Query your data for [from, until) and send the report to `recipients` here.
    logger.info('report prepared', { team, period, recipientCount: recipients.length });
    return {
      team,
      period,
      from: from.toISOString(),
      until: until.toISOString(),
      recipientCount: recipients.length,
    };
  },
});
