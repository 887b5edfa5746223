import { resolve } from 'node:path';
import { isSundialError, SundialApiError, SundialClient, SundialUnavailableError } from 'sundial/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SundialTasks } from '../../functions/tasks';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';

let platform: LocalPlatform;
let sundial: SundialClient<SundialTasks>;
const recipients = ['ops@example.com'];

beforeAll(async () => {
  platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, '../../functions'),
    tickIntervalMs: 500,
    log: () => {},
    env: { SUNDIAL_LOG_LEVEL: 'error' },
  });
  sundial = new SundialClient<SundialTasks>({ local: platform.url });
});

afterAll(async () => {
  sundial?.close();
  await platform?.stop();
});

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('the typed client against the local platform (npm start, with the tasks of functions/)', () => {
  it('runs a job and reads its result as the handler returned it', async () => {
    const run = await sundial.runJob('send-report', { team: 'ops', recipients }, { wait_seconds: 20 });

    expect(run.status).toBe('success');
    expect(run.result?.return_value).toMatchObject({ team: 'ops', period: 'daily', recipientCount: 1 });
  });

  it('adds a job, then waits for its result through the job it was given', async () => {
    const { status, job } = await sundial.addJob('slow-task', { ms: 10 }, { job_id: 'typed-slow' });
    const { result } = await sundial.getJobResult(job, { wait_seconds: 20 });

    expect([status, job.id, job.task]).toEqual(['added', 'typed-slow', 'slow-task']);
    expect(result.return_value).toEqual({ waitedMs: 10 });
  });

  it('throws the admin API’s refusals as SundialApiError, with their code and field', async () => {
    await sundial.addJob('slow-task', { ms: 10 }, { job_id: 'only-once', run_at: '2099-01-01T00:00:00Z' });

    const conflict = await failure(sundial.addJob('slow-task', { ms: 10 }, { job_id: 'only-once' }));
    const invalid = await failure(
      sundial.addJob('send-report', { team: 'ops', recipients: ['not-an-address'] }),
    );

    expect(isSundialError(conflict, 'conflicting_id')).toBe(true);
    expect(invalid).toBeInstanceOf(SundialApiError);
    expect(invalid).toMatchObject({ code: 'invalid_input', field: 'payload.recipients[0]' });
  });

  it('cancels a job that has not started', async () => {
    const { job } = await sundial.addJob('slow-task', { ms: 10 }, { run_at: '2099-01-01T00:00:00Z' });

    const cancelled = await sundial.cancelJob(job);

    expect(cancelled.status).toBe('cancelled');
  });

  it('adds, pauses, resumes and removes a schedule; one declared in code refuses changes, naming where', async () => {
    const added = await sundial.addSchedule({
      id: 'typed-nightly',
      task: 'send-report',
      trigger: { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' },
      payload: { team: 'ops', recipients },
    });
    const paused = await sundial.pauseSchedule('typed-nightly');
    const resumed = await sundial.resumeSchedule('typed-nightly');
    await sundial.removeSchedule('typed-nightly');
    const declared = await sundial.getSchedule('ops-weekday-report');
    const refused = await failure(
      sundial.updateSchedule({ id: 'ops-weekday-report', description: 'by hand' }),
    );

    expect([added.status, paused.paused, resumed.paused]).toEqual(['added', true, false]);
    expect(isSundialError(await failure(sundial.getSchedule('typed-nightly')), 'schedule_not_found')).toBe(
      true,
    );
    expect(declared.managed_by?.declared_in).toMatch(/functions\/send-report\.ts$/);
    expect(refused).toMatchObject({
      code: 'managed_by_code',
      message: expect.stringContaining('functions/send-report.ts'),
    });
  });

  it('says when the admin API cannot be reached', async () => {
    const nowhere = new SundialClient<SundialTasks>({
      local: 'http://127.0.0.1:9',
      lambda: { maxAttempts: 1 },
    });

    const error = await failure(nowhere.getSchedule('x'));
    nowhere.close();

    expect(error).toBeInstanceOf(SundialUnavailableError);
    expect(String(error)).toMatch(/cannot reach the admin function 'sundial-admin'/);
  });
});
