import { resolve } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { waitFor } from '../support/wait';
import { recorder } from './fixtures/recorder';

interface Answer {
  ok: boolean;
  result?: Record<string, unknown> & { jobs?: JobWire[]; schedules?: unknown[] };
  error?: { code: string; message: string };
}
interface JobWire {
  id: string;
  status: string;
  fire_time: string | null;
  started_at: string | null;
  attempt: number;
  result?: { outcome: string; error?: { message: string } };
}

let platform: LocalPlatform;
let lambda: LambdaClient;
/** The platform's log lines, down to debug: a test waits for the worker to drop a redelivered message. */
const logs: string[] = [];

async function admin(request: Record<string, unknown>): Promise<Answer> {
  const output = await lambda.send(
    new InvokeCommand({ FunctionName: 'sundial-admin', Payload: Buffer.from(JSON.stringify(request)) }),
  );
  return JSON.parse(Buffer.from(output.Payload ?? []).toString('utf8')) as Answer;
}

const jobsOf = async (filter: Record<string, unknown>) =>
  ((await admin({ action: 'list_jobs', limit: 100, ...filter })).result?.jobs ?? []) as JobWire[];
const runsOf = (task: string) => recorder().runs.filter((run) => run.task === task);
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

beforeAll(async () => {
  platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, 'fixtures/functions'),
    tickIntervalMs: 500,
    log: (line) => logs.push(line),
    env: { SUNDIAL_LOG_LEVEL: 'debug' },
  });
  lambda = new LambdaClient({
    endpoint: platform.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  lambda?.destroy();
  await platform?.stop();
});

describe('the local platform (npm start), end to end through the admin Lambda endpoint', () => {
  it('runs the deployed configuration: dispatchers over the due shards, as the construct deploys them', () => {
    expect(platform.deps.config).toMatchObject({ dispatchers: 8, shards: 16, tickBudgetMs: 40_000 });
  });

  it('runs each fire of a 2-second interval schedule once, never before its fire time', async () => {
    // Prepare / Act
    const added = await admin({
      action: 'add_schedule',
      id: 'every-2s',
      task: 'record',
      trigger: { type: 'interval', seconds: 2 },
    });
    expect(added.ok).toBe(true);
    const jobs = await waitFor(
      () => jobsOf({ schedule_id: 'every-2s' }),
      (list) => list.filter((job) => job.status === 'success').length >= 4,
    );
    await admin({ action: 'pause_schedule', id: 'every-2s' });

    // Assess
    const done = jobs.filter((job) => job.status === 'success');
    expect(done.length).toBeGreaterThanOrEqual(4);
    const fireTimes = done.map((job) => Date.parse(job.fire_time ?? '')).sort((a, b) => a - b);
    const gaps = fireTimes.slice(1).map((fire, index) => fire - (fireTimes[index] ?? 0));
    expect(new Set(gaps)).toEqual(new Set([2_000]));
    for (const job of done)
      expect(Date.parse(job.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(job.fire_time ?? ''));
    const ids = runsOf('record')
      .filter((run) => run.jobId.startsWith('every-2s@'))
      .map((run) => run.jobId);
    expect(new Set(ids).size).toBe(ids.length);
    const lags = done.map((job) => Date.parse(job.started_at ?? '') - Date.parse(job.fire_time ?? ''));
    console.info(`fire lag (ms) of the 2 s interval schedule: ${lags.join(', ')}`);
  });

  it('fires a cron schedule with seconds on the seconds it names', async () => {
    await admin({
      action: 'add_schedule',
      id: 'even-seconds',
      task: 'record',
      trigger: { type: 'cron', expression: '*/2 * * * * *' },
    });

    const jobs = await waitFor(
      () => jobsOf({ schedule_id: 'even-seconds' }),
      (list) => list.filter((job) => job.status === 'success').length >= 2,
    );
    await admin({ action: 'remove_schedule', id: 'even-seconds' });

    const fires = jobs
      .filter((job) => job.status === 'success')
      .map((job) => Date.parse(job.fire_time ?? ''));
    expect(fires.length).toBeGreaterThanOrEqual(2);
    for (const fire of fires) expect(fire % 2_000).toBe(0);
  });

  it('runs a one-off date schedule once and then reports it finished', async () => {
    await admin({
      action: 'add_schedule',
      id: 'once',
      task: 'record',
      trigger: { type: 'date', run_at: inSeconds(2) },
    });

    const jobs = await waitFor(
      () => jobsOf({ schedule_id: 'once' }),
      (list) => list.some((job) => job.status === 'success'),
    );
    const schedule = await admin({ action: 'get_schedule', id: 'once' });

    expect(jobs.map((job) => job.status)).toEqual(['success']);
    expect(schedule.result?.next_fire_at ?? null).toBeNull();
  });

  it('runs a paused schedule at once with run_schedule_now', async () => {
    await admin({
      action: 'add_schedule',
      id: 'manual',
      task: 'record',
      trigger: { type: 'cron', expression: '0 3 1 1 *' },
      paused: true,
    });

    const started = await admin({ action: 'run_schedule_now', id: 'manual' });
    const jobs = await waitFor(
      () => jobsOf({ schedule_id: 'manual' }),
      (list) => list.some((job) => job.status === 'success'),
    );

    expect(started.ok).toBe(true);
    expect(jobs.filter((job) => job.status === 'success')).toHaveLength(1);
  });

  it('never runs more than maxRunningJobs (2) of a task at once with 20 jobs queued', async () => {
    const added = await admin({
      action: 'add_jobs',
      jobs: Array.from({ length: 20 }, () => ({ task: 'limited', payload: { ms: 300 } })),
    });
    expect(added.ok).toBe(true);

    const jobs = await waitFor(
      () => jobsOf({ task: 'limited' }),
      (list) => list.filter((job) => job.status === 'success').length === 20,
      60_000,
    );

    expect(jobs.filter((job) => job.status === 'success')).toHaveLength(20);
    expect(recorder().maxRunning('limited')).toBe(2);
    expect(runsOf('limited')).toHaveLength(20);
  });

  it('retries a failing job with backoff, then records an error result after the last attempt', async () => {
    const added = await admin({ action: 'add_job', task: 'always-fails', job_id: 'doomed' });
    expect(added.ok).toBe(true);

    const result = await waitFor(
      () => admin({ action: 'get_job_result', job_id: 'doomed' }),
      (answer) => answer.ok,
      60_000,
    );

    expect(result.result).toMatchObject({
      status: 'error',
      result: { outcome: 'error', attempt: 3, error: { message: 'attempt 3 failed' } },
    });
    expect(runsOf('always-fails').map((run) => run.attempt)).toEqual([1, 2, 3]);
  });

  it('records missed_start_deadline for a job that could not start within its misfire grace', async () => {
    await admin({ action: 'add_job', task: 'single-file', job_id: 'hog', payload: { ms: 3_000 } });
    await waitFor(
      async () => runsOf('single-file').length,
      (count) => count === 1,
    );
    await admin({ action: 'add_job', task: 'single-file', job_id: 'too-late', payload: { ms: 0 } });

    const result = await waitFor(
      () => admin({ action: 'get_job_result', job_id: 'too-late' }),
      (answer) => answer.ok,
    );

    expect(result.result).toMatchObject({
      status: 'missed_start_deadline',
      result: { outcome: 'missed_start_deadline' },
    });
    expect(runsOf('single-file').map((run) => run.jobId)).toEqual(['hog']);
  });

  it('forgets a result once its resultTtlSeconds have passed', async () => {
    await waitFor(
      () => admin({ action: 'get_job_result', job_id: 'hog' }),
      (answer) => answer.ok,
    );

    const later = await waitFor(
      () => admin({ action: 'get_job', job_id: 'hog' }),
      (answer) => !answer.ok,
      10_000,
    );

    expect(later.error?.code).toBe('job_not_found');
  });

  it('does not run a job twice when its message is delivered again', async () => {
    const sqs = new SQSClient({
      endpoint: platform.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const message = {
      v: 1,
      job: {
        id: 'twice',
        task: 'record',
        payload: {},
        origin: 'direct',
        scheduleId: null,
        fireTime: null,
        runAt: Date.now(),
        startDeadline: null,
      },
      attempt: 1,
    };
    // Prepare: the job ran once
    await admin({ action: 'add_job', task: 'record', job_id: 'twice' });
    await waitFor(
      () => admin({ action: 'get_job_result', job_id: 'twice' }),
      (answer) => answer.ok,
    );

    // Act: the job's message arrives again after the job ran
    await sqs.send(
      new SendMessageCommand({ QueueUrl: platform.queueUrl, MessageBody: JSON.stringify(message) }),
    );
    const dropped = await waitFor(
      async () => logs.some((line) => /duplicate delivery dropped.*twice/.test(line)),
      (dropped) => dropped,
    );
    sqs.destroy();

    // Assess: the worker dropped the redelivery, and the task ran once
    expect(dropped).toBe(true);
    expect(runsOf('record').filter((run) => run.jobId === 'twice')).toHaveLength(1);
  });

  it('rejects every kind of bad input with a clear error and writes nothing', async () => {
    const before = await admin({ action: 'list_schedules', limit: 500 });
    const answers = await Promise.all([
      admin({ action: 'add_schedule', task: 'record', trigger: { type: 'cron', expression: '*/0 * * * *' } }),
      admin({ action: 'add_schedule', task: 'no-such-task', trigger: { type: 'interval', seconds: 5 } }),
      admin({
        action: 'add_schedule',
        task: 'record',
        trigger: { type: 'date', run_at: '2030-01-01T00:00:00' },
      }),
      admin({
        action: 'add_schedule',
        task: 'record',
        trigger: { type: 'interval', seconds: 5 },
        surprise: 1,
      }),
      admin({ action: 'add_job', task: 'record', payload: { blob: 'x'.repeat(200 * 1024) } }),
      admin({ action: 'fly_to_the_moon' }),
    ]);
    const after = await admin({ action: 'list_schedules', limit: 500 });

    expect(answers.map((answer) => answer.error?.code)).toEqual([
      'invalid_input',
      'unknown_task',
      'invalid_input',
      'invalid_input',
      'invalid_input',
      'unknown_action',
    ]);
    expect(answers[0]?.error?.message).toContain("trigger.expression: invalid cron expression '*/0 * * * *'");
    expect(answers[2]?.error?.message).toContain('trigger.run_at');
    expect(answers[3]?.error?.message).toContain('surprise');
    expect(answers[4]?.error?.message).toContain('payload');
    expect(after.result?.schedules).toEqual(before.result?.schedules);
  });
});
