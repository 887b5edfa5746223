import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../lib/core/clock';
import { readConfig } from '../../../lib/runtime/config';
import type { RuntimeDeps } from '../../../lib/runtime/dependencies';
import { createAdminHandler } from '../../../lib/runtime/handlers/admin';
import { silentLogger } from '../../../lib/runtime/observability/logger';
import { sequentialIds } from '../support';
import { RecordingQueue, T0, testTasks } from './support/harness';

function runtimeDeps(env: Record<string, string> = {}): RuntimeDeps & { queue: RecordingQueue } {
  const store = new MemoryStore();
  return {
    config: readConfig({ SUNDIAL_TABLE_NAME: 'sundial', SUNDIAL_QUEUE_URL: 'http://queue', ...env }),
    scheduleStore: store,
    jobStore: store,
    queue: new RecordingQueue(),
    events: { publish: async () => {} },
    clock: new ManualClock(T0),
    sleep: async () => {},
    random: () => 0,
    newId: sequentialIds(),
    logger: silentLogger,
    metricsSink: () => {},
  };
}

describe('the admin Lambda handler', () => {
  it('answers the event with the admin API, building the dependencies once', async () => {
    const deps = runtimeDeps();
    const getDeps = vi.fn(() => deps);
    const handler = createAdminHandler(getDeps, testTasks());

    const added = await handler(
      { action: 'add_job', task: 'cleanup', job_id: 'j1' },
      { awsRequestId: 'r-1' },
    );
    const fetched = await handler({ action: 'get_job', job_id: 'j1' }, { awsRequestId: 'r-2' });

    expect(added.ok).toBe(true);
    expect(fetched).toMatchObject({ ok: true, result: { job: { id: 'j1', status: 'queued' } } });
    expect(getDeps).toHaveBeenCalledTimes(1);
    expect(deps.queue.messages.map((message) => message.job.id)).toEqual(['j1']);
  });

  it('reads a request sent as a JSON string', async () => {
    const handler = createAdminHandler(() => runtimeDeps(), testTasks());

    const response = await handler(JSON.stringify({ action: 'list_tasks' }));

    expect(response).toMatchObject({
      ok: true,
      result: { tasks: [{ id: 'cleanup' }, { id: 'send-report' }] },
    });
  });

  it('sends at most the configured fires per plan when a call sends a schedule’s first fires itself', async () => {
    const deps = runtimeDeps({ SUNDIAL_MAX_FIRES_PER_PLAN: '3' });
    const handler = createAdminHandler(() => deps, testTasks());

    const added = await handler({
      action: 'add_schedule',
      id: 'soon',
      task: 'cleanup',
      trigger: { type: 'interval', seconds: 1 },
    });

    expect(added).toMatchObject({ ok: true, result: { dispatched_jobs: 3, schedule: { runs: 3 } } });
    expect(deps.queue.messages.map((message) => message.job.fireTime)).toEqual([T0, T0 + 1_000, T0 + 2_000]);
  });

  it('answers internal_error, without throwing, when the dependencies cannot be built', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = createAdminHandler(() => {
      throw new Error('SUNDIAL_TABLE_NAME is required');
    }, testTasks());

    const response = await handler({ action: 'list_tasks' }, { awsRequestId: 'r-9' });

    expect(response).toEqual({
      ok: false,
      error: { code: 'internal_error', message: 'internal error; see the logs (request id r-9)' },
    });
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('SUNDIAL_TABLE_NAME is required'));
    errors.mockRestore();
  });
});
