import { describe, expect, it } from 'vitest';
import type { AdminResponse } from '../../../lib/runtime/admin';
import { createHarness, errorOf, type Harness, nightlyBerlin } from './support/harness';

const MEGABYTE = 1024 * 1024;
/** An error answer must stay small whatever the caller sent (a Lambda answer is at most 6 MB). */
const MAX_ERROR_JSON_CHARS = 4_000;

async function boundedError(h: Harness, request: unknown) {
  const error = errorOf(await h.admin(request));
  expect(error.code).not.toBe('internal_error');
  expect(JSON.stringify(error).length).toBeLessThan(MAX_ERROR_JSON_CHARS);
  return error;
}

describe('payload keys named __proto__', () => {
  // JSON.parse makes `__proto__` an own key; DynamoDB's marshaller would drop it, and reading it back
  // would set the prototype of the handler's payload object: refused as input, wherever it is.
  const withProtoKey = () => JSON.parse('{"team":"ops","nested":{"list":[1,{"__proto__":{"admin":true}}]}}');

  it.each([
    ['add_job', { action: 'add_job', task: 'cleanup' }, 'payload'],
    ['add_schedule', { action: 'add_schedule', task: 'cleanup', trigger: nightlyBerlin }, 'payload'],
    ['add_jobs', { action: 'add_jobs', jobs: [{ task: 'cleanup', payload: 'ref' }] }, 'jobs[0].payload'],
  ])('%s answers invalid_input naming the key, writing nothing', async (_, request, field) => {
    const h = createHarness();
    const body = JSON.parse(JSON.stringify(request));
    if (body.jobs) body.jobs[0].payload = withProtoKey();
    else body.payload = withProtoKey();

    const response = await h.admin(body);

    const error = errorOf(
      body.jobs ? (response as { result: { results: [AdminResponse] } }).result.results[0] : response,
    );
    expect(error).toEqual({
      code: 'invalid_input',
      message: `${field}.nested.list[1].__proto__: must not be a key named __proto__ (it cannot be stored faithfully); rename it`,
      details: [
        {
          path: `${field}.nested.list[1].__proto__`,
          message: 'must not be a key named __proto__ (it cannot be stored faithfully); rename it',
        },
      ],
    });
    expect(h.writes).toEqual([]);
    expect(h.queue.messages).toEqual([]);
  });

  it('update_schedule answers invalid_input naming the key, changing nothing', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    h.writes.length = 0;

    const error = errorOf(
      await h.admin(JSON.parse('{"action":"update_schedule","id":"report","payload":{"__proto__":1}}')),
    );

    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^payload\.__proto__: must not be a key named __proto__/);
    expect(h.writes).toEqual([]);
  });
});

describe('error messages quote what the caller sent, shortened', () => {
  it('answers a 1 MB action name with a short unknown_action message', async () => {
    const h = createHarness();

    const error = await boundedError(h, { action: 'x'.repeat(MEGABYTE) });

    expect(error.code).toBe('unknown_action');
    expect(error.message).toMatch(/^unknown action 'x{60}…' \(1048576 characters\); actions: add_schedule, /);
  });

  it.each([
    [
      'a field name',
      { action: 'add_schedule', task: 'cleanup', trigger: nightlyBerlin, ['f'.repeat(MEGABYTE)]: 1 },
    ],
    ['a task name', { action: 'add_job', task: 't'.repeat(MEGABYTE) }],
    [
      'a cron expression',
      {
        action: 'preview_schedule',
        trigger: { type: 'cron', expression: `${'1'.repeat(MEGABYTE)} * * * *` },
      },
    ],
    [
      'a cron shortcut',
      { action: 'preview_schedule', trigger: { type: 'cron', expression: `@${'d'.repeat(MEGABYTE)}` } },
    ],
    [
      'a time zone',
      {
        action: 'preview_schedule',
        trigger: { type: 'cron', expression: '* * * * *', timezone: 'z'.repeat(MEGABYTE) },
      },
    ],
    [
      'a trigger field',
      {
        action: 'preview_schedule',
        trigger: { type: 'cron', expression: '* * * * *', ['k'.repeat(MEGABYTE)]: 1 },
      },
    ],
    ['a trigger type', { action: 'preview_schedule', trigger: { type: 'y'.repeat(MEGABYTE) } }],
    ['an instant', { action: 'add_job', task: 'cleanup', run_at: `2026-${'9'.repeat(MEGABYTE)}` }],
    [
      'a date trigger',
      { action: 'preview_schedule', trigger: { type: 'date', run_at: 'd'.repeat(MEGABYTE) } },
    ],
    ['a job id', { action: 'get_job', job_id: 'j'.repeat(MEGABYTE) }],
    ['a cursor', { action: 'list_schedules', cursor: 'c'.repeat(MEGABYTE) }],
    [
      'a payload key the task schema does not know',
      { action: 'add_job', task: 'send-report', payload: { team: 'ops', ['p'.repeat(100_000)]: 1 } },
    ],
  ])('bounds the answer to %s of 1 MB', async (_, request) => {
    const h = createHarness();

    await boundedError(h, request);
  });

  it('reports the first problems of a request with 50,000 unknown fields, and how many more', async () => {
    const h = createHarness();
    const request = Object.fromEntries(
      Array.from({ length: 50_000 }, (_, index) => [`field${index}`, index]),
    );

    const error = await boundedError(h, { ...request, action: 'list_tasks' });

    expect(error.message).toMatch(/; and 49980 more problems$/);
    expect(error.details).toHaveLength(21);
  });
});
