import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ADMIN_ERROR_CODES } from '../../../lib/core/admin-contract';
import type { AdminResponse } from '../../../lib/runtime/admin';
import { createHarness, type Harness, MINUTE } from './support/harness';

/**
 * The examples of docs/admin-api.md are real: this scenario produces them against the in-memory store
 * (tasks `send-report` and `cleanup` of the test harness, now = 2026-03-02T09:00:00Z), and the test
 * fails when the document no longer shows what the API answers. `PRINT_ADMIN_EXAMPLES=1` prints them.
 */
async function scenario(
  h: Harness,
): Promise<Array<{ name: string; request: Record<string, unknown>; response: AdminResponse }>> {
  const examples: Array<{ name: string; request: Record<string, unknown>; response: AdminResponse }> = [];
  const run = async (name: string, request: Record<string, unknown>) => {
    examples.push({ name, request, response: await h.admin(request, { requestId: 'example' }) });
  };

  await run('add_schedule', {
    action: 'add_schedule',
    id: 'nightly-report',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin' },
    payload: { team: 'ops', format: 'pdf' },
    misfire_grace_seconds: 600,
    tags: ['reports'],
  });
  await run('add_schedule max_runs', {
    action: 'add_schedule',
    id: 'trial-reminder',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 18 * * *' },
    payload: { team: 'sales' },
    max_runs: 3,
    keep_finished: true,
  });
  await run('add_schedule dispatched', {
    action: 'add_schedule',
    id: 'cleanup-every-30s',
    task: 'cleanup',
    trigger: { type: 'interval', seconds: 30 },
  });
  await run('get_job dispatched fire', { action: 'get_job', job_id: 'cleanup-every-30s@1772442060000' });
  await run('list_jobs dispatched fires', {
    action: 'list_jobs',
    schedule_id: 'cleanup-every-30s',
    status: 'queued',
    limit: 2,
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
  await run('pause_schedule', { action: 'pause_schedule', id: 'cleanup-every-30s' });
  h.clock.advance(10 * MINUTE);
  await run('resume_schedule', { action: 'resume_schedule', id: 'cleanup-every-30s' });
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
    payload: { team: 'finance' },
    run_at: '2026-03-02T10:20:00+01:00',
  });
  await run('add_jobs', {
    action: 'add_jobs',
    jobs: [
      { task: 'cleanup', job_id: 'cleanup-a', payload: { dir: '/tmp/a' } },
      { task: 'cleanup', job_id: 'cleanup-b', run_at: '2026-03-03T00:00:00Z' },
      { task: 'send-report', payload: {} },
    ],
  });
  await run('get_job', { action: 'get_job', job_id: 'report-2026-03' });
  await run('list_jobs', { action: 'list_jobs', task: 'cleanup', status: 'queued', limit: 2 });
  await run('get_job_result pending', { action: 'get_job_result', job_id: 'cleanup-a' });
  await finish(h, 'cleanup-a', { deleted: 12 });
  await run('get_job_result', { action: 'get_job_result', job_id: 'cleanup-a' });
  await run('cancel_job', { action: 'cancel_job', job_id: 'cleanup-b' });
  await run('cancel_job finished', { action: 'cancel_job', job_id: 'cleanup-a' });
  await run('remove_schedule', { action: 'remove_schedule', id: 'cleanup-every-30s' });
  await run('add_schedule overrides and metadata', {
    action: 'add_schedule',
    id: 'acme-report',
    task: 'send-report',
    trigger: { type: 'cron', expression: '0 6 * * *' },
    payload: { team: 'acme' },
    description: 'Daily report for the acme tenant',
    metadata: { tenant: 'acme', tier: 'gold' },
    max_attempts: 5,
    timeout_seconds: 30,
  });
  await run('list_schedules metadata', {
    action: 'list_schedules',
    metadata: { tenant: 'acme' },
  });
  await run('add_job overrides and metadata', {
    action: 'add_job',
    task: 'cleanup',
    job_id: 'cleanup-acme',
    max_attempts: 1,
    result_ttl_seconds: 600,
    misfire_grace_seconds: null,
    metadata: { tenant: 'acme' },
  });
  await run('add_job timeout above the task', {
    action: 'add_job',
    task: 'cleanup',
    timeout_seconds: 120,
  });
  await run('pause_task', { action: 'pause_task', task: 'cleanup' });
  await waitInLine(h, 'cleanup-b2', '/tmp/b');
  await run('list_tasks', { action: 'list_tasks' });
  await run('resume_task', { action: 'resume_task', task: 'cleanup' });
  await run('unknown action', { action: 'delete_everything' });
  h.onPause = async (count) => {
    if (count === 3) await finish(h, 'cleanup-now', { deleted: 3 });
  };
  await run('run_job', {
    action: 'run_job',
    task: 'cleanup',
    job_id: 'cleanup-now',
    payload: { dir: '/tmp/now' },
    wait_seconds: 10,
  });
  await h.admin({ action: 'add_job', task: 'cleanup', job_id: 'cleanup-c', payload: { dir: '/tmp/c' } });
  await finish(h, 'cleanup-c', { type: 'DiskFull', message: 'no space left on /tmp/c' });
  await run('list_jobs failed', { action: 'list_jobs', status: 'error', since: '2026-03-02T09:00:00Z' });
  await run('count_jobs', { action: 'count_jobs', task: 'cleanup' });
  await run('retry_job', { action: 'retry_job', job_id: 'cleanup-c' });
  await run('retry_job not retryable', { action: 'retry_job', job_id: 'cleanup-a' });
  await run('preview_schedule eventbridge', {
    action: 'preview_schedule',
    trigger: { type: 'eventbridge', expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin' },
    from: '2026-03-28T00:00:00Z',
    count: 3,
  });
  await run('add_schedule eventbridge', {
    action: 'add_schedule',
    id: 'billing:sync-invoices',
    task: 'cleanup',
    trigger: { type: 'eventbridge', expression: 'rate(15 minutes)' },
    payload: { dir: '/tmp/invoices' },
    max_jitter_seconds: 300,
  });
  await run('add_schedule eventbridge invalid', {
    action: 'add_schedule',
    task: 'cleanup',
    trigger: { type: 'eventbridge', expression: 'cron(0 10 * * MON-FRI *)', timezone: 'Europe/Berlin' },
  });
  await run('add_schedule priority', {
    action: 'add_schedule',
    id: 'payment-retries',
    task: 'cleanup',
    trigger: { type: 'cron', expression: '0 * * * *' },
    payload: { dir: '/tmp/payments' },
    priority: 'critical',
  });
  await run('update_schedule priority', { action: 'update_schedule', id: 'payment-retries', priority: null });
  return examples;
}

/** Adds a job of `cleanup` and puts it in the task's line, as a worker does when the task is paused. */
async function waitInLine(h: Harness, jobId: string, dir: string) {
  const now = h.clock.now();
  const job = { id: jobId, task: 'cleanup', payload: { dir }, origin: 'direct' as const };
  const request = { ...job, scheduleId: null, fireTime: null, runAt: now, startDeadline: null };
  await h.store.createJob({ job: request, conflictPolicy: 'exception', now, parkUntilDue: false });
  await h.store.joinLine({ message: { job: request, attempt: 1 }, now });
}

/** Runs a stored job as a worker would (2.5 s of work): to success with `returnValue`, or to an error. */
async function finish(
  h: Harness,
  jobId: string,
  returnValue: { deleted: number } | { type: string; message: string },
) {
  const now = h.clock.now();
  const job = await h.store.getJob(jobId, now);
  if (!job) throw new Error(`no job ${jobId}`);
  await h.store.claimJob({ job, attempt: 1, owner: 'worker', now, leaseUntil: now + MINUTE });
  h.clock.advance(2_500);
  await h.store.finishJob({
    jobId,
    owner: 'worker',
    result:
      'type' in returnValue
        ? { outcome: 'error', error: returnValue, startedAt: now, finishedAt: h.clock.now(), attempt: 1 }
        : { outcome: 'success', returnValue, startedAt: now, finishedAt: h.clock.now(), attempt: 1 },
    expiresAt: h.clock.now() + 7 * 24 * 3600 * 1000,
  });
}

describe('docs/admin-api.md', () => {
  it('shows what the admin API really answers', async () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/admin-api.md'), 'utf8');
    let sequence = 0;
    const uuidLike = () => `5b0c2f6e-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;
    const examples = await scenario(createHarness({ newId: uuidLike }));

    if (process.env.PRINT_ADMIN_EXAMPLES) {
      for (const { name, request, response } of examples) {
        console.log(
          `### ${name}\n\`\`\`json\n${JSON.stringify(request, null, 2)}\n\`\`\`\n\`\`\`json\n${JSON.stringify(response, null, 2)}\n\`\`\`\n`,
        );
      }
    }
    // Compared as JSON, so reformatting the page (wrapping, compact arrays) does not matter.
    const documented = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].flatMap(([, block]) => {
      try {
        return [JSON.parse(block ?? '') as unknown];
      } catch {
        return [];
      }
    });
    const shown = (value: unknown) => documented.some((block) => isDeepStrictEqual(block, value));
    const missing = examples.filter(({ request, response }) => !shown(request) || !shown(response));
    expect(missing.map(({ name }) => name)).toEqual([]);
  });

  it('lists every error code of the contract’s registry, and no other', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/admin-api.md'), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Error codes'),
      doc.indexOf('\n## ', doc.indexOf('## Error codes') + 1),
    );
    const documented = [...section.matchAll(/^\| `([a-z_]+)` /gm)].map(([, code]) => code);

    expect(documented).toEqual([...ADMIN_ERROR_CODES]);
  });
});
