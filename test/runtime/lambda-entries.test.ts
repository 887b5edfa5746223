import { describe, expect, it, vi } from 'vitest';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import { createAdminLambdaHandler } from '../../lib/runtime/lambda/admin';
import { withLambdaContext } from '../../lib/runtime/lambda/lambda-context';
import { createWorkerLambdaHandler } from '../../lib/runtime/lambda/worker';
import { defineTask } from '../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../lib/runtime/tasks/registry';
import { testTasks } from './admin/support/harness';
import { lambdaContext, testRuntime } from './support';
import { recordFor } from './worker/harness';

describe('Lambda entries', () => {
  it('put the request id and function name on every log line of a tick invocation', async () => {
    // Prepare
    const runtime = testRuntime();
    const handler = withLambdaContext(
      () => runtime.deps,
      createTickHandler(() => runtime.deps),
    );

    // Act
    await handler({}, lambdaContext('sundial-tick', 'tick-request-1'));

    // Assess
    expect(runtime.logLines.length).toBeGreaterThan(0);
    for (const line of runtime.logLines) {
      expect(line).toMatchObject({ function_request_id: 'tick-request-1', function_name: 'sundial-tick' });
    }
  });

  it("put the request id on a worker job's lines", async () => {
    // Prepare
    const runtime = testRuntime();
    const echo = defineTask({
      handler: (_payload, { logger }) => {
        logger.info('working');
        return null;
      },
    });
    const registry = staticTaskRegistry({ echo: { default: echo } });
    const handler = createWorkerLambdaHandler(() => runtime.deps, registry);

    // Act
    await handler(
      { Records: [recordFor('job-1', 'echo')] },
      lambdaContext('sundial-worker', 'worker-request-1'),
    );

    // Assess
    expect(runtime.logLines).toContainEqual(
      expect.objectContaining({
        message: 'working',
        jobId: 'job-1',
        function_request_id: 'worker-request-1',
      }),
    );
  });

  it('answer internal_error from the admin entry, without throwing, when the dependencies cannot be built', async () => {
    // Prepare
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = createAdminLambdaHandler(() => {
      throw new Error('SUNDIAL_TABLE_NAME is required');
    }, testTasks());

    // Act
    const response = await handler(
      { action: 'list_tasks' },
      lambdaContext('sundial-admin', 'admin-request-1'),
    );

    // Assess
    expect(response).toEqual({
      ok: false,
      error: { code: 'internal_error', message: 'internal error; see the logs (request id admin-request-1)' },
    });
    errors.mockRestore();
  });
});
