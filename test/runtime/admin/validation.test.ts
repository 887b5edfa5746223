import { describe, expect, it } from 'vitest';
import { addScheduleParams } from '../../../lib/core/admin-contract/schedules';
import { LIMITS } from '../../../lib/core/limits';
import { createHarness, errorOf, type Harness, nightlyBerlin } from './support/harness';

/** Sends a request that must be rejected with `invalid_input`, and checks that nothing was written or sent. */
async function rejected(h: Harness, request: Record<string, unknown>) {
  const error = errorOf(await h.call(request));
  expect(error.code).toBe('invalid_input');
  expect(h.writes).toEqual([]);
  expect(h.queue.messages).toEqual([]);
  return error;
}

/** The fields of add_schedule, as its request schema in the contract has them. */
const ALLOWED_SCHEDULE_FIELDS = Object.keys(addScheduleParams.shape).join(', ');

describe('the request envelope', () => {
  it.each([[null], ['add_schedule'], [[{ action: 'list_tasks' }]], [42]])(
    'rejects %j as not an object',
    async (request) => {
      const h = createHarness();

      const error = errorOf(await h.admin(request));

      expect(error).toEqual({
        code: 'invalid_input',
        message: 'the request must be a JSON object: { "action": "...", ...fields }',
        details: [{ path: '', message: 'the request must be a JSON object: { "action": "...", ...fields }' }],
      });
    },
  );

  it('requires an action and lists the actions', async () => {
    const h = createHarness();

    const error = errorOf(await h.admin({ task: 'cleanup' }));

    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(
      /^action: is required: must be one of add_schedule, get_schedule, .*, list_tasks, pause_task, resume_task$/,
    );
  });

  it('answers unknown_action for an action it does not have, listing the actions', async () => {
    const h = createHarness();

    const error = errorOf(await h.admin({ action: 'delete_everything' }));

    expect(error).toEqual({
      code: 'unknown_action',
      message:
        "unknown action 'delete_everything'; actions: add_schedule, get_schedule, list_schedules, update_schedule, " +
        'pause_schedule, resume_schedule, remove_schedule, preview_schedule, run_schedule_now, add_job, add_jobs, ' +
        'get_job, list_jobs, get_job_result, cancel_job, run_job, count_jobs, retry_job, list_tasks, pause_task, resume_task',
    });
  });

  it('does not treat inherited object properties as actions', async () => {
    const h = createHarness();

    expect(errorOf(await h.admin({ action: 'toString' })).code).toBe('unknown_action');
    expect(errorOf(await h.admin({ action: '__proto__' })).code).toBe('unknown_action');
  });
});

describe('add_schedule input', () => {
  it('lists every problem at once, each with its field path, and writes nothing', async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'send-report',
      trigger: { type: 'cron', expression: '*/0 * * * *' },
      max_jitter_seconds: 4000,
      payload: { team: '' },
      colour: 'red',
    });

    expect(error.message).toBe(
      [
        'max_jitter_seconds: must be a whole number from 0 to 3600',
        `colour: is not a known field; allowed fields: ${ALLOWED_SCHEDULE_FIELDS}`,
        "trigger.expression: invalid cron expression '*/0 * * * *': step must be at least 1",
        'payload.team: Too small: expected string to have >=1 characters',
      ].join('; '),
    );
    expect(error.details).toEqual([
      { path: 'max_jitter_seconds', message: 'must be a whole number from 0 to 3600' },
      { path: 'colour', message: `is not a known field; allowed fields: ${ALLOWED_SCHEDULE_FIELDS}` },
      {
        path: 'trigger.expression',
        message: "invalid cron expression '*/0 * * * *': step must be at least 1",
      },
      { path: 'payload.team', message: 'Too small: expected string to have >=1 characters' },
    ]);
  });

  it('rejects a date trigger in the past: it would never fire', async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: { type: 'date', run_at: '2026-03-02T08:59:59Z' },
    });

    expect(error.message).toBe(
      'trigger: has no fire time at or after now (2026-03-02T09:00:00Z); its run_at 2026-03-02T08:59:59Z has passed; to run a job once now, use add_job',
    );
  });

  it('rejects a trigger whose end has passed', async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: { type: 'cron', expression: '0 * * * *', end_at: '2026-03-01T00:00:00Z' },
    });

    expect(error.message).toBe(
      'trigger: has no fire time at or after now (2026-03-02T09:00:00Z); its end has passed',
    );
  });

  it('rejects an and trigger whose triggers never fire together, on add and on preview', async () => {
    const h = createHarness();
    const neverTogether = {
      type: 'and',
      threshold_seconds: 0,
      max_iterations: 10,
      triggers: [
        { type: 'interval', seconds: 2, start_at: '2026-01-01T00:00:00Z' },
        { type: 'interval', seconds: 2, start_at: '2026-01-01T00:00:01Z' },
      ],
    };

    const added = await rejected(h, { action: 'add_schedule', task: 'cleanup', trigger: neverTogether });
    const previewed = await rejected(h, { action: 'preview_schedule', trigger: neverTogether });

    for (const error of [added, previewed]) {
      expect(error.details).toEqual([
        { path: 'trigger', message: expect.stringMatching(/^the 'and' trigger found no instant where all/) },
      ]);
    }
  });

  it('says which fields are required', async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'add_schedule' });

    expect(error.message).toBe('task: is required; trigger: is required');
  });

  it("rejects ids with '@' or too long, naming the rule", async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      id: `a@${'b'.repeat(LIMITS.idLength)}`,
      task: 'cleanup',
      trigger: nightlyBerlin,
    });

    expect(error.details).toEqual([
      { path: 'id', message: `must be at most ${LIMITS.idLength} characters` },
      {
        path: 'id',
        message:
          'may contain only letters, digits and . _ : - (not @, which separates a schedule id from a fire time)',
      },
    ]);
  });

  it('rejects too many tags and tags that are too long', async () => {
    const h = createHarness();

    const tooMany = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
      tags: Array.from({ length: LIMITS.tagsPerSchedule + 1 }, (_, index) => `tag-${index}`),
    });
    const tooLong = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
      tags: ['ok', 'x'.repeat(LIMITS.tagLength + 1)],
    });

    expect(tooMany.message).toBe('tags: must hold at most 20 tags');
    expect(tooLong.message).toBe('tags[1]: must be at most 64 characters');
  });

  it('rejects a payload over the size limit, saying how big it was', async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
      payload: { blob: 'x'.repeat(LIMITS.payloadBytes) },
    });

    expect(error.message).toBe(
      `payload: must be at most ${LIMITS.payloadBytes} bytes as UTF-8 JSON (got ${LIMITS.payloadBytes + 11}); store large data elsewhere (S3) and pass its key`,
    );
  });

  it('accepts a payload of exactly the size limit', async () => {
    const h = createHarness();
    const blob = 'x'.repeat(LIMITS.payloadBytes - '{"blob":""}'.length);

    await h.ok({ action: 'add_schedule', task: 'cleanup', trigger: nightlyBerlin, payload: { blob } });
  });

  it.each([
    [
      'a non-JSON value',
      { when: new Date(0) },
      'payload.when: must be JSON: objects, arrays, strings, numbers, booleans and null only',
    ],
    [
      'a number DynamoDB cannot store',
      { n: 1e300 },
      'payload.n: must hold numbers from -9007199254740991 to 9007199254740991, and of magnitude at least 1e-130 (pass other numbers as strings)',
    ],
    [
      'a number the document client cannot write exactly',
      { n: 2 ** 53 },
      'payload.n: must hold numbers from -9007199254740991 to 9007199254740991, and of magnitude at least 1e-130 (pass other numbers as strings)',
    ],
    ['an empty object key', { '': 1 }, 'payload: must not have empty object keys'],
    [
      'nesting deeper than the store allows',
      nested(40),
      `payload${'.next'.repeat(31)}: must not nest deeper than 30 levels`,
    ],
  ])('rejects a payload with %s', async (_name, payload, message) => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'cleanup',
      trigger: nightlyBerlin,
      payload,
    });

    expect(error.message).toBe(message);
  });

  it('answers unknown_task, listing the known tasks, when the task is the only problem', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({ action: 'add_schedule', task: 'send-reprot', trigger: nightlyBerlin }),
    );

    expect(error).toEqual({
      code: 'unknown_task',
      message: "task 'send-reprot' is not registered; known tasks: cleanup, send-report",
    });
    expect(h.writes).toEqual([]);
  });

  it('lists an unknown task among the other problems', async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'nope',
      trigger: nightlyBerlin,
      coalesce: 'newest',
    });

    expect(error.message).toBe(
      "coalesce: must be one of latest, earliest, all; task: 'nope' is not a registered task; known tasks: cleanup, send-report",
    );
  });

  it("checks the payload against the task's payloadSchema, reporting issues under payload.<path>", async () => {
    const h = createHarness();

    const error = await rejected(h, {
      action: 'add_schedule',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 7, format: 'docx' },
    });

    expect(error.details).toEqual([
      { path: 'payload.team', message: 'Invalid input: expected string, received number' },
      { path: 'payload.format', message: 'Invalid option: expected one of "pdf"|"csv"' },
    ]);
  });

  it("checks the default payload {} against the task's payloadSchema", async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'add_schedule', task: 'send-report', trigger: nightlyBerlin });

    expect(error.message).toBe('payload.team: Invalid input: expected string, received undefined');
  });
});

describe('other actions’ input', () => {
  it('rejects an add_job run_at without an offset, as ambiguous', async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'add_job', task: 'cleanup', run_at: '2026-03-02T10:00:00' });

    expect(error.message).toBe(
      "run_at: '2026-03-02T10:00:00' has no UTC offset, so it is ambiguous: add 'Z' for UTC or an offset such as '+01:00'",
    );
  });

  it('rejects a preview of more than 1000 fire times, and one without trigger or id', async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'preview_schedule', count: 1001 });

    expect(error.message).toBe(
      'count: must be a whole number from 1 to 1000; give trigger (to try one out) or id (of a stored schedule)',
    );
  });

  it('rejects a preview given both a trigger and an id', async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'preview_schedule', id: 'x', trigger: nightlyBerlin });

    expect(error.message).toBe('give trigger or id, not both');
  });

  it('needs a schedule_id or task to list jobs, or an unsuccessful status alone', async () => {
    const h = createHarness();

    const none = await rejected(h, { action: 'list_jobs' });
    const running = await rejected(h, { action: 'list_jobs', status: 'running' });
    const ranged = await rejected(h, { action: 'list_jobs', task: 'cleanup', since: '2026-03-01T00:00:00Z' });

    expect(none.message).toBe(
      'give schedule_id or task (status narrows either), or a status alone of error, missed_start_deadline, abandoned, cancelled',
    );
    expect(running.message).toBe(
      'status: without schedule_id or task, must be one of error, missed_start_deadline, abandoned, cancelled',
    );
    expect(ranged.message).toMatch(/^since: narrows only a status alone/);
    expect((await rejected(h, { action: 'list_jobs', status: 'bogus' })).details).toHaveLength(1);
  });

  it('rejects unknown fields on every action, naming them', async () => {
    const h = createHarness();

    const error = await rejected(h, { action: 'list_tasks', verbose: true });

    expect(error.message).toBe('verbose: is not a known field; no fields are allowed here');
  });

  it('rejects an update whose fields are invalid before reading anything it would write', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'report', task: 'cleanup', trigger: nightlyBerlin });
    h.writes.length = 0;

    const error = await rejected(h, {
      action: 'update_schedule',
      id: 'report',
      trigger: { type: 'interval', hours: -1 },
      misfire_grace_seconds: 0,
    });

    expect(error.details).toEqual([
      { path: 'misfire_grace_seconds', message: 'must be a whole number from 1 to 31536000' },
      { path: 'trigger.hours', message: expect.any(String) },
    ]);
  });
});

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}
