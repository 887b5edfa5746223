import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../lib/core/json';
import type { Job } from '../../lib/core/model/job';
import { type AdminResponse, createAdminApi } from '../../lib/runtime/admin';
import { adminDependencies } from '../../lib/runtime/handlers/admin';
import type { JobContext } from '../../lib/runtime/tasks/define-task';
import { waitFor } from '../support/wait';
import { type AnyTaskOptions, runInBackground, taskRegistry, useLocalServices } from './real-runtime';

const local = useLocalServices();

/**
 * The admin API, tick and workers on DynamoDB Local and the SQS emulator: jobs added with overrides of
 * their task's settings and with metadata run as those say.
 */
async function platformWith(tasks: Record<string, AnyTaskOptions>) {
  const runtime = await local.runtime();
  const api = createAdminApi(adminDependencies(runtime.deps, taskRegistry(tasks)));
  const admin = async (request: Record<string, unknown>) => {
    const response: AdminResponse = await api(request);
    if (!response.ok) throw new Error(`${String(request.action)} failed: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const platform = runInBackground(local.sqs(), runtime, tasks);
  const finished = (jobId: string) =>
    waitFor(
      () => runtime.store.getJob(jobId, Date.now()),
      (job: Job | undefined) => job !== undefined && job.finishedAt !== null,
      20_000,
    );
  return { admin, finished, stop: () => platform.stop() };
}

describe('overrides and metadata on the real runtime', () => {
  it('runs a job with its own max_attempts and timeout, and hands its handler the metadata', async () => {
    let flakyRuns = 0;
    const seen: Array<{ jobId: string; metadata: Readonly<Record<string, string>> }> = [];
    const platform = await platformWith({
      flaky: {
        retry: { maxAttempts: 5, backoffSeconds: 0 },
        handler: () => {
          flakyRuns += 1;
          throw new Error('down');
        },
      },
      // Without the override its 60 s timeout would outlast the wait below.
      slow: {
        timeoutSeconds: 60,
        retry: { maxAttempts: 1 },
        handler: (_payload: JsonValue, { signal }: JobContext) =>
          new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
      },
      echo: {
        handler: (_payload: JsonValue, { jobId, metadata }: JobContext) => {
          seen.push({ jobId, metadata });
        },
      },
    });
    try {
      await platform.admin({ action: 'add_job', task: 'flaky', job_id: 'flaky-1', max_attempts: 2 });
      await platform.admin({ action: 'add_job', task: 'slow', job_id: 'slow-1', timeout_seconds: 1 });
      await platform.admin({
        action: 'add_job',
        task: 'echo',
        job_id: 'echo-1',
        metadata: { tenant: 'acme' },
      });
      await platform.admin({
        action: 'add_schedule',
        id: 'echo-every-second',
        task: 'echo',
        trigger: { type: 'interval', seconds: 1 },
        metadata: { tenant: 'globex', source: 'schedule' },
      });

      const [flaky, slow, echo] = await Promise.all([
        platform.finished('flaky-1'),
        platform.finished('slow-1'),
        platform.finished('echo-1'),
      ]);
      await waitFor(
        async () => seen.filter((run) => run.jobId.startsWith('echo-every-second@')),
        (runs) => runs.length > 0,
        20_000,
      );

      expect(flaky?.status).toBe('error');
      expect(flaky?.attempt).toBe(2);
      expect(flakyRuns).toBe(2);
      expect(slow?.status).toBe('error');
      expect(slow?.result?.error?.type).toBe('TimeoutError');
      expect(echo?.status).toBe('success');
      expect(echo?.metadata).toEqual({ tenant: 'acme' });
      expect(seen.find((run) => run.jobId === 'echo-1')?.metadata).toEqual({ tenant: 'acme' });
      const fire = seen.find((run) => run.jobId.startsWith('echo-every-second@'));
      expect(fire?.metadata).toEqual({ tenant: 'globex', source: 'schedule' });
      const listed = await platform.admin({
        action: 'list_jobs',
        task: 'echo',
        metadata: { source: 'schedule' },
        limit: 500,
      });
      const ids = (listed.jobs as Array<{ id: string }>).map((job) => job.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => id.startsWith('echo-every-second@'))).toBe(true);
    } finally {
      await platform.stop();
    }
  });
});
