import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_NAMES, type AdminAction, type AdminResponse } from '../../../lib/runtime/admin';
import { createHarness } from './support/harness';

const FIELD_NAMES = [
  'id',
  'task',
  'trigger',
  'payload',
  'coalesce',
  'misfire_grace_seconds',
  'max_jitter_seconds',
  'tags',
  'paused',
  'conflict_policy',
  'limit',
  'cursor',
  'expected_version',
  'replay_missed',
  'from',
  'count',
  'run_at',
  'job_id',
  'jobs',
  'schedule_id',
  'status',
  'tag',
] as const;

/** Values that are often valid, so that requests get past the schema into the actions. */
const plausibleValue = fc.oneof(
  fc.constantFrom(
    'cleanup',
    'send-report',
    'nope',
    'report',
    'a@1',
    'latest',
    'all',
    'replace',
    'do_nothing',
    'queued',
  ),
  fc.constantFrom(
    { type: 'cron', expression: '* * * * *' },
    { type: 'cron', expression: '*/0 * * * *' },
    { type: 'interval', seconds: 30 },
    { type: 'date', run_at: '2026-03-02T09:00:30Z' },
    {
      type: 'or',
      triggers: [
        { type: 'interval', minutes: 1 },
        { type: 'cron', expression: '0 3 * * *' },
      ],
    },
    { team: 'ops' },
    [{ task: 'cleanup' }, { task: 'send-report', payload: { team: 1 } }],
  ),
  fc.constantFrom('2026-03-02T09:00:00Z', '2026-03-02T10:00:00', '2027-01-01T00:00:00+02:00'),
  fc.integer({ min: -5, max: 5000 }),
  fc.boolean(),
  fc.constant(null),
);

const fieldValue = fc.oneof(
  { weight: 3, arbitrary: plausibleValue },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A valid request of each action, against the seeded harness; the fuzzer mutates these. */
const VALID_REQUESTS: Record<AdminAction, Record<string, unknown>> = {
  add_schedule: {
    id: 'new',
    task: 'send-report',
    trigger: { type: 'interval', seconds: 30 },
    payload: { team: 'ops' },
  },
  get_schedule: { id: 'report' },
  list_schedules: { task: 'cleanup', limit: 2 },
  update_schedule: { id: 'report', trigger: { type: 'cron', expression: '*/20 * * * * *' }, tags: ['a'] },
  pause_schedule: { id: 'report' },
  resume_schedule: { id: 'report', replay_missed: true },
  remove_schedule: { id: 'report' },
  preview_schedule: { id: 'report', count: 5 },
  run_schedule_now: { id: 'report' },
  add_job: { task: 'cleanup', job_id: 'j2', run_at: '2026-03-02T09:30:00Z' },
  add_jobs: { jobs: [{ task: 'cleanup' }, { task: 'send-report', payload: { team: 'x' } }] },
  get_job: { job_id: 'j1' },
  list_jobs: { task: 'cleanup' },
  get_job_result: { job_id: 'done' },
  cancel_job: { job_id: 'j1' },
  list_tasks: {},
};

type Mutation = { drop: string } | { set: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ drop: fc.constantFrom(...FIELD_NAMES) }),
  fc.record({
    set: fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 8 })),
    value: fieldValue,
  }),
);

const request = fc
  .tuple(fc.constantFrom(...ACTION_NAMES, 'bogus'), fc.array(mutation, { maxLength: 3 }))
  .map(([action, mutations]) => {
    const fields: Record<string, unknown> = { ...(VALID_REQUESTS[action as AdminAction] ?? {}) };
    for (const change of mutations) {
      if ('drop' in change) delete fields[change.drop];
      else fields[change.set] = change.value;
    }
    return { ...fields, action };
  });

/**
 * A harness holding a schedule `report` (every minute, so already dispatched), a queued job `j1` and a
 * finished job `done`.
 */
async function seededHarness() {
  const h = createHarness();
  await h.ok({
    action: 'add_schedule',
    id: 'report',
    task: 'cleanup',
    trigger: { type: 'cron', expression: '* * * * *' },
  });
  await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'j1' });
  await h.ok({ action: 'add_job', task: 'cleanup', job_id: 'done' });
  const now = h.clock.now();
  const done = await h.store.getJob('done', now);
  if (!done) throw new Error('seeding failed');
  await h.store.claimJob({ job: done, attempt: 1, owner: 'worker', now, leaseUntil: now + 60_000 });
  await h.store.finishJob({
    jobId: 'done',
    owner: 'worker',
    result: { outcome: 'success', startedAt: now, finishedAt: now, attempt: 1 },
    expiresAt: now + 3_600_000,
  });
  h.writes.length = 0;
  return h;
}

function expectWellFormed(response: AdminResponse) {
  if (response.ok) {
    expect(Object.keys(response).sort()).toEqual(['ok', 'result']);
  } else {
    expect(typeof response.error.code).toBe('string');
    expect(typeof response.error.message).toBe('string');
    expect(response.error.message.length).toBeGreaterThan(0);
  }
}

describe('the admin API never throws', () => {
  it('answers any JSON value with a well-formed response', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.anything()), async (input) => {
        const h = createHarness();
        const response = await h.admin(input);
        expectWellFormed(response);
        expect(response.ok).toBe(false);
        expect(h.writes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('answers fuzzed requests of every action without an internal error, writing nothing when rejecting input', async () => {
    const succeeded = new Set<unknown>();
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
        const h = await seededHarness();
        for (const input of requests) {
          const writesBefore = h.writes.length;
          const messagesBefore = h.queue.messages.length;
          const response = await h.admin(input);
          expectWellFormed(response);
          if (response.ok) succeeded.add(input.action);
          else {
            expect(response.error.code).not.toBe('internal_error');
            if (['invalid_input', 'unknown_action', 'unknown_task'].includes(response.error.code)) {
              expect(h.writes.length).toBe(writesBefore);
              expect(h.queue.messages.length).toBe(messagesBefore);
            }
          }
        }
        expect(h.logs.filter((line) => line.level === 'error')).toEqual([]);
      }),
      { numRuns: 400 },
    );
    // The fuzzer must reach past validation into every action, or it proves little.
    expect([...succeeded].sort()).toEqual([...ACTION_NAMES].sort());
  });
});
