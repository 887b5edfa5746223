import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ERROR_CODES } from '../../lib/core/admin-contract';
import { waitFor } from '../support/wait';
import { type DocRunner, startDocRunner } from './support/doc-runner';
import { commandLines, fencedBlocks } from './support/markdown';

/**
 * docs/admin-api.md's examples are real: this scenario sends each request of the page to the local
 * platform (the tasks in `functions/`; its clock starts at 2026-03-02T09:00:00Z) and the page must show
 * each request followed by its answer (times of the run, durations, generated ids and cursors aside),
 * and no request that the scenario does not send. `PRINT_ADMIN_EXAMPLES=<file>` writes them as JSON.
 */

const page = readFileSync(resolve(import.meta.dirname, '../../docs/admin-api.md'), 'utf8');
const SECOND = 1_000;
const RECIPIENTS = ['ops@example.com'];

interface Example {
  name: string;
  request: Record<string, unknown>;
  answer: unknown;
}

interface Answer {
  ok: boolean;
  result?: Record<string, unknown> & {
    schedule?: { trigger: { start_at?: string } };
    job?: { status: string };
    tasks?: { id: string; waiting: number; running: number }[];
  };
}

let runner: DocRunner;

beforeAll(async () => {
  runner = await startDocRunner({ anchor: '2026-03-02T09:00:00Z', shownPort: 4750 });
});

afterAll(async () => {
  await runner?.stop();
});

async function scenario(): Promise<Example[]> {
  const examples: Example[] = [];
  const send = async (request: Record<string, unknown>) => (await runner.admin(request)) as Answer;
  const run = async (name: string, request: Record<string, unknown>) => {
    const answer = await send(request);
    examples.push({ name, request, answer });
    return answer;
  };
  /** Waits until the job is in one of the statuses (a worker took it, it ended). */
  const jobIn = (jobId: string, ...statuses: string[]) =>
    waitFor(
      () => send({ action: 'get_job', job_id: jobId }),
      (answer) => statuses.includes(answer.result?.job?.status ?? ''),
    );

  await run('add_schedule', {
    action: 'add_schedule',
    id: 'nightly-report',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' },
    payload: { team: 'ops', recipients: RECIPIENTS },
    misfire_grace_seconds: 600,
    tags: ['reports'],
  });
  await run('add_schedule max_runs', {
    action: 'add_schedule',
    id: 'trial-reminder',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 18 * * *' },
    payload: { team: 'sales', recipients: ['sales@example.com'] },
    max_runs: 3,
    keep_finished: true,
  });
  const ping = await run('add_schedule dispatched', {
    action: 'add_schedule',
    id: 'dashboard-ping',
    task: 'http-ping',
    trigger: { type: 'interval', seconds: 30 },
    payload: { url: 'http://127.0.0.1:4750/' },
  });
  const pingStart = Date.parse(ping.result?.schedule?.trigger.start_at ?? '');
  await run('get_job dispatched fire', {
    action: 'get_job',
    job_id: `dashboard-ping@${pingStart + 60 * SECOND}`,
  });
  await run('list_jobs dispatched fires', {
    action: 'list_jobs',
    schedule_id: 'dashboard-ping',
    status: 'queued',
    limit: 2,
  });
  await run('add_schedule dry_run', {
    action: 'add_schedule',
    id: 'weekly-report',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 8 * * MON', timezone: 'Europe/Berlin' },
    payload: { team: 'ops', period: 'weekly', recipients: RECIPIENTS },
    dry_run: true,
  });
  await run('add_schedule invalid', {
    action: 'add_schedule',
    task: 'send-report',
    trigger: { type: 'cron', expression: '*/0 * * * *' },
    payload: { team: 7 },
    max_jitter_seconds: 7200,
    colour: 'blue',
  });
  await run('add_schedule unknown task', {
    action: 'add_schedule',
    task: 'send-reprot',
    trigger: { type: 'cron', expression: '0 3 * * *' },
  });
  await run('get_schedule', { action: 'get_schedule', id: 'nightly-report' });
  await run('list_schedules', { action: 'list_schedules', limit: 1 });
  await run('update_schedule', {
    action: 'update_schedule',
    id: 'nightly-report',
    trigger: { type: 'cron', expression: '30 6 * * MON-FRI', timezone: 'Europe/Berlin' },
    expected_version: 1,
  });
  await run('update_schedule conflict', {
    action: 'update_schedule',
    id: 'nightly-report',
    max_jitter_seconds: 60,
    expected_version: 1,
  });
  await run('pause_schedule', { action: 'pause_schedule', id: 'dashboard-ping' });
  await run('resume_schedule', { action: 'resume_schedule', id: 'dashboard-ping' });
  await run('preview_schedule', {
    action: 'preview_schedule',
    trigger: { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
    from: '2026-03-28T00:00:00Z',
    count: 3,
  });
  await run('run_schedule_now', { action: 'run_schedule_now', id: 'nightly-report' });
  await run('add_job', {
    action: 'add_job',
    task: 'send-report',
    job_id: 'report-2026-03',
    payload: { team: 'finance', recipients: ['cfo@example.com'] },
    run_at: '2026-03-02T10:30:00+01:00',
  });
  await run('add_jobs', {
    action: 'add_jobs',
    jobs: [
      { task: 'slow-task', job_id: 'slow-a', payload: { ms: 2000 } },
      { task: 'slow-task', job_id: 'slow-b', payload: { ms: 100 }, run_at: '2026-03-03T00:00:00Z' },
      { task: 'send-report', payload: {} },
    ],
  });
  await run('get_job', { action: 'get_job', job_id: 'report-2026-03' });
  await jobIn('slow-a', 'running');
  await run('list_jobs', { action: 'list_jobs', task: 'slow-task', limit: 2 });
  await run('get_job_result pending', { action: 'get_job_result', job_id: 'slow-b' });
  await run('get_job_result', { action: 'get_job_result', job_id: 'slow-a', wait_seconds: 10 });
  await run('cancel_job', { action: 'cancel_job', job_id: 'slow-b' });
  await run('cancel_job finished', { action: 'cancel_job', job_id: 'slow-a' });
  // A running job is asked to stop: its worker aborts the handler's signal at its next check (5 s)
  await send({ action: 'add_job', task: 'slow-task', job_id: 'slow-c', payload: { ms: 60_000 } });
  await jobIn('slow-c', 'running');
  await run('cancel_job running', { action: 'cancel_job', job_id: 'slow-c' });
  await run('get_job_result cancelled', { action: 'get_job_result', job_id: 'slow-c', wait_seconds: 10 });
  await run('remove_schedule', { action: 'remove_schedule', id: 'dashboard-ping' });
  await run('add_schedule overrides and metadata', {
    action: 'add_schedule',
    id: 'acme-report',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 6 * * *' },
    payload: { team: 'acme', recipients: ['ops@acme.example'] },
    description: 'Daily report for the acme tenant',
    metadata: { tenant: 'acme', tier: 'gold' },
    max_attempts: 5,
    timeout_seconds: 30,
  });
  await run('list_schedules metadata', { action: 'list_schedules', metadata: { tenant: 'acme' } });
  await run('add_job overrides and metadata', {
    action: 'add_job',
    task: 'slow-task',
    job_id: 'slow-acme',
    payload: { ms: 100 },
    max_attempts: 1,
    result_ttl_seconds: 600,
    misfire_grace_seconds: null,
    metadata: { tenant: 'acme' },
  });
  await run('add_job timeout above the task', {
    action: 'add_job',
    task: 'slow-task',
    payload: { ms: 100 },
    timeout_seconds: 180,
  });
  await jobIn('slow-acme', 'success');
  await run('pause_task', { action: 'pause_task', task: 'slow-task' });
  // A job that comes due while its task is paused waits in the task's line
  await send({ action: 'add_job', task: 'slow-task', job_id: 'slow-waiting', payload: { ms: 100 } });
  await waitFor(
    () => send({ action: 'list_tasks' }),
    (answer) => answer.result?.tasks?.find((task) => task.id === 'slow-task')?.waiting === 1,
  );
  await run('list_tasks', { action: 'list_tasks' });
  await run('get_job waiting', { action: 'get_job', job_id: 'slow-waiting' });
  await run('resume_task', { action: 'resume_task', task: 'slow-task' });
  await run('unknown action', { action: 'delete_everything' });
  await run('run_job', {
    action: 'run_job',
    task: 'send-report',
    job_id: 'report-now',
    payload: { team: 'ops', recipients: RECIPIENTS, until: '2026-03-02T00:00:00Z' },
    wait_seconds: 10,
  });
  // A job given less time than it needs fails for good (slow-task makes one attempt)
  await send({
    action: 'add_job',
    task: 'slow-task',
    job_id: 'slow-timeout',
    payload: { ms: 5000 },
    timeout_seconds: 1,
  });
  await jobIn('slow-timeout', 'error');
  await jobIn('slow-waiting', 'success');
  await run('list_jobs failed', { action: 'list_jobs', status: 'error', since: '2026-03-02T09:00:00Z' });
  await run('count_jobs', { action: 'count_jobs', task: 'slow-task' });
  await run('retry_job', { action: 'retry_job', job_id: 'slow-timeout' });
  await run('retry_job not retryable', { action: 'retry_job', job_id: 'slow-a' });
  await run('preview_schedule eventbridge', {
    action: 'preview_schedule',
    trigger: { type: 'eventbridge', expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin' },
    from: '2026-03-28T00:00:00Z',
    count: 3,
  });
  await run('add_schedule eventbridge', {
    action: 'add_schedule',
    id: 'billing:invoice-summary',
    task: 'send-report',
    trigger: { type: 'eventbridge', expression: 'rate(15 minutes)' },
    payload: { team: 'billing', recipients: ['billing@example.com'] },
    max_jitter_seconds: 300,
  });
  await run('add_schedule eventbridge invalid', {
    action: 'add_schedule',
    task: 'send-report',
    trigger: { type: 'eventbridge', expression: 'cron(0 10 * * MON-FRI *)', timezone: 'Europe/Berlin' },
    payload: { team: 'ops', recipients: RECIPIENTS },
  });
  await run('add_schedule priority', {
    action: 'add_schedule',
    id: 'payment-checks',
    task: 'http-ping',
    trigger: { type: 'cron', expression: '0 * * * *' },
    payload: { url: 'https://payments.example.com/health' },
    priority: 'critical',
  });
  await run('update_schedule priority', { action: 'update_schedule', id: 'payment-checks', priority: null });
  return examples;
}

/** The page's JSON blocks in order, parsed (blocks that are not JSON values are left out). */
function jsonBlocks(): unknown[] {
  return fencedBlocks(page)
    .filter((block) => block.language === 'json')
    .flatMap((block) => {
      try {
        return [JSON.parse(block.body) as unknown];
      } catch {
        return [];
      }
    });
}

const isRequest = (value: unknown) => typeof value === 'object' && value !== null && 'action' in value;

describe('docs/admin-api.md, run against the local platform', () => {
  it('shows each request the scenario sends, followed by what the admin API answers', async () => {
    const examples = await scenario();
    if (process.env.PRINT_ADMIN_EXAMPLES) {
      writeFileSync(process.env.PRINT_ADMIN_EXAMPLES, JSON.stringify(examples, null, 2));
    }
    const { mask } = runner;
    const shown = jsonBlocks().map((block) => mask.json(block));

    const missing = examples.filter(({ request, answer }) => {
      const at = shown.findIndex((block) => isDeepStrictEqual(block, mask.json(request)));
      return at < 0 || !isDeepStrictEqual(shown[at + 1], mask.json(answer));
    });
    const notSent = shown.filter(
      (block) =>
        isRequest(block) && !examples.some(({ request }) => isDeepStrictEqual(mask.json(request), block)),
    );

    expect(missing.map(({ name }) => name)).toEqual([]);
    expect(notSent).toEqual([]);
  }, 120_000);

  it('runs the page’s commands', async () => {
    const commands = fencedBlocks(page)
      .filter((block) => block.language === 'sh')
      .flatMap((block) => commandLines(block.body));
    const results = await Promise.all(
      commands.map(async (command) => ({ command, ...(await runner.run(command)) })),
    );

    expect(commands.length).toBeGreaterThan(0);
    expect(results.filter((result) => result.code !== 0)).toEqual([]);
  });

  it('lists every error code of the contract’s registry, and no other', () => {
    const section = page.slice(
      page.indexOf('## Error codes'),
      page.indexOf('\n## ', page.indexOf('## Error codes') + 1),
    );
    const documented = [...section.matchAll(/^\| `([a-z_]+)` /gm)].map(([, code]) => code);

    expect(documented).toEqual([...ADMIN_ERROR_CODES]);
  });
});
