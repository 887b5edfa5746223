/**
 * Compile-time checks of the typed client, run by `npm run typecheck` (this file is never executed):
 * each `@ts-expect-error` line must fail to compile, or the check fails with "unused directive". The
 * task map is the real one of `functions/`.
 */

import { isSundialError, type SundialClient } from 'sundial/client';
import type { SundialTasks } from '../../functions/tasks';

declare const sundial: SundialClient<SundialTasks>;
const recipients = ['ops@example.com'];

export async function taskIdsAndPayloads(): Promise<void> {
  await sundial.addJob('send-report', { team: 'ops', recipients });
  // `period` has a default in the schema: optional for the caller
  await sundial.addJob('send-report', { team: 'ops', period: 'weekly', recipients });
  await sundial.addJob('slow-task', { ms: 10 }, { run_at: '2026-12-24T18:00:00Z', priority: 'critical' });

  // @ts-expect-error a task id that functions/ does not have
  await sundial.addJob('send-reports', { team: 'ops', recipients });
  // @ts-expect-error a payload field the task's schema does not have
  await sundial.addJob('send-report', { team: 'ops', recipients, colour: 'blue' });
  // @ts-expect-error a payload without a required field
  await sundial.addJob('send-report', { team: 'ops' });
  // @ts-expect-error a payload field of the wrong type
  await sundial.addJob('slow-task', { ms: '10' });
  // @ts-expect-error a value the schema's enum does not hold
  await sundial.addJob('send-report', { team: 'ops', period: 'hourly', recipients });
  // @ts-expect-error an option add_job does not take
  await sundial.addJob('slow-task', { ms: 10 }, { run_later: true });
}

export async function schedules(): Promise<void> {
  await sundial.addSchedule({
    id: 'nightly',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' },
    payload: { team: 'ops', recipients },
  });
  await sundial.addSchedule({
    id: 'nightly',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 3 * * *' },
    // @ts-expect-error the schedule's payload is its task's
    payload: { ms: 10 },
  });
  // @ts-expect-error a schedule of a task functions/ does not have
  await sundial.addSchedule({ id: 'x', task: 'nope', trigger: { type: 'interval', minutes: 1 } });
}

export async function results(): Promise<void> {
  const run = await sundial.runJob('send-report', { team: 'ops', recipients }, { wait_seconds: 10 });
  if (run.result?.outcome === 'success' && run.result.return_value) {
    const count: number = run.result.return_value.recipientCount;
    const period: 'daily' | 'weekly' = run.result.return_value.period;
    // @ts-expect-error the handler returns no such field
    const missing = run.result.return_value.sent;
    void [count, period, missing];
  }
  const { job } = await sundial.addJob('slow-task', { ms: 10 });
  const { result } = await sundial.getJobResult(job, { wait_seconds: 5 });
  const waited: number | undefined = result.return_value?.waitedMs;
  // @ts-expect-error the result of slow-task is { waitedMs }, not a string
  const text: string | undefined = result.return_value;
  void [waited, text];
}

export function errors(error: unknown): string | null {
  if (isSundialError(error, 'invalid_input')) {
    const code: 'invalid_input' = error.code;
    return `${code} at ${error.field}`;
  }
  // @ts-expect-error no such error code
  if (isSundialError(error, 'no_such_code')) return null;
  return null;
}
