import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../lib/core/errors';
import type { JsonValue } from '../../../lib/core/json';
import { createHarness, errorOf, nightlyBerlin, testTasks } from './support/harness';

describe('failures inside the admin API', () => {
  it('answers internal_error with the request id, logging the stack but never answering it', async () => {
    const h = createHarness();
    h.store.getSchedule = async () => {
      throw new TypeError('cannot read properties of undefined');
    };

    const response = await h.admin({ action: 'get_schedule', id: 'report' }, { requestId: 'req-42' });

    expect(response).toEqual({
      ok: false,
      error: { code: 'internal_error', message: 'internal error; see the logs (request id req-42)' },
    });
    expect(JSON.stringify(response)).not.toContain('cannot read');
    expect(h.logs).toEqual([
      {
        level: 'error',
        message: 'admin request failed unexpectedly',
        fields: {
          requestId: 'req-42',
          error: expect.objectContaining({
            name: 'TypeError',
            message: 'cannot read properties of undefined',
            stack: expect.stringContaining('TypeError: cannot read properties of undefined'),
          }),
        },
      },
    ]);
  });

  it('answers unavailable when the store keeps failing', async () => {
    const h = createHarness();
    h.store.listSchedules = async () => {
      throw new StoreUnavailableError('listSchedules');
    };

    const error = errorOf(await h.admin({ action: 'list_schedules' }));

    expect(error).toEqual({
      code: 'unavailable',
      message: "the store did not answer 'listSchedules' after retries",
    });
  });

  it('answers invalid_task_config for a task whose payloadSchema is asynchronous, writing nothing', async () => {
    const asyncSchema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: async (value: unknown) => ({ value: value as JsonValue }),
      },
    };
    const h = createHarness({
      tasks: testTasks({ slow: { handler: () => undefined, payloadSchema: asyncSchema } }),
    });

    const error = errorOf(await h.admin({ action: 'add_schedule', task: 'slow', trigger: nightlyBerlin }));

    expect(error).toEqual({
      code: 'invalid_task_config',
      message:
        "task 'slow' is misconfigured: its payloadSchema validates asynchronously; payload schemas must be synchronous (no async refinements)",
    });
    expect(h.writes).toEqual([]);
  });

  it('answers invalid_task_config for a payloadSchema that throws', async () => {
    const throwingSchema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (): never => {
          throw new Error('schema bug');
        },
      },
    };
    const h = createHarness({
      tasks: testTasks({ buggy: { handler: () => undefined, payloadSchema: throwingSchema } }),
    });

    const error = errorOf(await h.admin({ action: 'add_job', task: 'buggy' }));

    expect(error.code).toBe('invalid_task_config');
    expect(h.writes).toEqual([]);
  });
});
