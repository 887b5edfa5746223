import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ADMIN_REQUESTS } from '../../../../lib/core/admin-contract';
import type { JobStore } from '../../../../lib/core/ports/job-store';
import type { AdminAction, AdminApi, AdminResponse } from '../../../../lib/runtime/admin';
import { ACTION_NAMES } from '../../../../lib/runtime/admin';

/**
 * The admin API fuzzer: valid requests of every action, mutated with plausible, random and hostile
 * values (huge strings and field names, `__proto__` keys as JSON.parse makes them, foreign and
 * tampered cursors, one job id twice in add_jobs), and the checks every answer must pass.
 */

/** Every field of every action, from the actions' schemas. */
const FIELD_NAMES = [
  ...new Set(Object.values(ADMIN_REQUESTS).flatMap((schema) => Object.keys(schema.shape))),
];

const HUGE = 100_000;

/** Cursors handed out by the seeded listings, by name; the fuzzer refers to them as `$cursor:<name>`. */
export type SeededCursors = Record<string, string>;
const CURSOR_NAMES = ['schedules', 'cleanup-schedules', 'cleanup-jobs', 'queued-jobs'] as const;

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** Payloads the in-memory store keeps but DynamoDB cannot: `__proto__` keys at some depth, numbers past 2^53. */
const hostilePayload = fc.oneof(
  fc
    .tuple(fc.jsonValue({ maxDepth: 2 }), fc.nat({ max: 3 }))
    .map(([inner, depth]) =>
      JSON.parse(`${'{"n":['.repeat(depth)}{"__proto__":${JSON.stringify(inner)}}${']}'.repeat(depth)}`),
    ),
  fc
    .oneof(fc.double({ min: 2 ** 53, max: 1e125, noNaN: true }), fc.constant(-(2 ** 53)))
    .map((n) => ({ team: 'ops', counts: [1, n] })),
  fc.constant({ [`k${'k'.repeat(HUGE)}`]: 1 }),
);

/** Cursors of other listings (`$cursor:<name>`), with a character changed, or made up. */
const hostileCursor = fc.oneof(
  fc.constantFrom(...CURSOR_NAMES.map((name) => `$cursor:${name}`)),
  fc
    .tuple(fc.constantFrom(...CURSOR_NAMES), fc.nat(), fc.constantFrom('A', '_', '-', 'z'))
    .map(([name, at, character]) => `$cursor:${name}:${at}:${character}`),
  fc.jsonValue({ maxDepth: 2 }).map((value) => base64url(JSON.stringify(value))),
);

/** add_jobs items: one id twice under each conflict policy, or hostile payloads. */
const hostileJobs = fc.oneof(
  fc
    .constantFrom('exception', 'do_nothing', 'replace')
    .map((policy) =>
      [1, 2].map((payload) => ({ task: 'cleanup', job_id: 'dup', conflict_policy: policy, payload })),
    ),
  hostilePayload.map((payload) => [{ task: 'cleanup', payload }, { task: 'cleanup' }]),
);

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
  { weight: 1, arbitrary: fc.constant('x'.repeat(HUGE)) },
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
  run_job: { task: 'cleanup', job_id: 'j3', wait_seconds: 1 },
  count_jobs: { task: 'cleanup', max_jobs: 10 },
  retry_job: { job_id: 'failed' },
  list_tasks: {},
  pause_task: { task: 'cleanup' },
  resume_task: { task: 'cleanup' },
};

type Mutation = { drop: string } | { set: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ drop: fc.constantFrom(...FIELD_NAMES) }) },
  { weight: 1, arbitrary: fc.record({ set: fc.constant('payload'), value: hostilePayload }) },
  { weight: 1, arbitrary: fc.record({ set: fc.constant('cursor'), value: hostileCursor }) },
  { weight: 1, arbitrary: fc.record({ set: fc.constant('jobs'), value: hostileJobs }) },
  {
    weight: 5,
    arbitrary: fc.record({
      set: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...FIELD_NAMES) },
        { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
        { weight: 1, arbitrary: fc.constantFrom('f'.repeat(HUGE), '__proto__') },
      ),
      value: fieldValue,
    }),
  },
);

/** One fuzzed request: an action (or a bogus or huge one) with its valid fields mutated. */
export const fuzzedRequest = fc
  .tuple(
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...ACTION_NAMES, 'bogus') },
      { weight: 1, arbitrary: fc.constant('a'.repeat(HUGE)) },
    ),
    fc.array(mutation, { maxLength: 3 }),
  )
  .map(([action, mutations]) => {
    const fields: Record<string, unknown> = { ...(VALID_REQUESTS[action as AdminAction] ?? {}) };
    for (const change of mutations) {
      if ('drop' in change) delete fields[change.drop];
      else setOwn(fields, change.set, change.value);
    }
    return { ...fields, action };
  });

/**
 * Replaces `$cursor:<name>` with a cursor the seeded listing handed out, and
 * `$cursor:<name>:<at>:<c>` with that cursor with one character changed.
 */
export function withSeededCursors(request: Record<string, unknown>, cursors: SeededCursors) {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    const match = typeof value === 'string' ? /^\$cursor:([a-z-]+)(?::(\d+):(.))?$/.exec(value) : null;
    const cursor = match ? cursors[match[1] ?? ''] : undefined;
    const replaced =
      cursor === undefined || !match
        ? value
        : match[2] === undefined
          ? cursor
          : tampered(cursor, Number(match[2]) % cursor.length, match[3] ?? 'A');
    setOwn(fields, key, replaced);
  }
  return fields;
}

/** `fields[key] = value`, as JSON.parse would set it: `__proto__` becomes an own field, not the prototype. */
function setOwn(fields: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
}

function tampered(cursor: string, at: number, character: string): string {
  return `${cursor.slice(0, at)}${cursor[at] === character ? 'B' : character}${cursor.slice(at + 1)}`;
}

/** Seeds through the admin API: schedules `report` and `report-2`, queued jobs `j0` and `j1`, jobs `done` and `failed` to end. */
export async function seedThroughApi(admin: AdminApi): Promise<SeededCursors> {
  const ok = async (request: Record<string, unknown>) => {
    const response = await admin(request);
    if (!response.ok) throw new Error(`seeding failed: ${JSON.stringify(response.error)}`);
    return response.result as { cursor?: string | null };
  };
  for (const id of ['report', 'report-2']) {
    await ok({
      action: 'add_schedule',
      id,
      task: 'cleanup',
      trigger: { type: 'cron', expression: '* * * * *' },
      conflict_policy: 'replace',
    });
  }
  for (const id of ['j0', 'j1', 'done', 'failed']) {
    await ok({ action: 'add_job', task: 'cleanup', job_id: id, conflict_policy: 'replace' });
  }
  const cursorOf = async (request: Record<string, unknown>) => {
    const { cursor } = await ok(request);
    if (typeof cursor !== 'string') throw new Error(`seeding gave no cursor for ${JSON.stringify(request)}`);
    return cursor;
  };
  return {
    schedules: await cursorOf({ action: 'list_schedules', limit: 1 }),
    'cleanup-schedules': await cursorOf({ action: 'list_schedules', task: 'cleanup', limit: 1 }),
    'cleanup-jobs': await cursorOf({ action: 'list_jobs', task: 'cleanup', limit: 1 }),
    'queued-jobs': await cursorOf({ action: 'list_jobs', task: 'cleanup', status: 'queued', limit: 1 }),
  };
}

/** Ends job `done` in success and `failed` in error, so that get_job_result and retry_job have results. */
export async function finishSeededJob(store: JobStore, now: number): Promise<void> {
  for (const [id, outcome] of [
    ['done', 'success'],
    ['failed', 'error'],
  ] as const) {
    const job = await store.getJob(id, now);
    if (!job) throw new Error('seeding failed');
    await store.claimJob({ job, attempt: 1, owner: 'worker', now, leaseUntil: now + 60_000 });
    await store.finishJob({
      jobId: id,
      owner: 'worker',
      result: { outcome, startedAt: now, finishedAt: now, attempt: 1 },
      expiresAt: now + 3_600_000,
    });
  }
}

/** A seeded admin API under fuzzing, with what it wrote, sent and logged. */
export interface FuzzTarget {
  admin: AdminApi;
  writes: readonly string[];
  messages: readonly unknown[];
  logs: readonly { level: string }[];
  cursors: SeededCursors;
}

/**
 * Sends each fuzzed request and checks its answer ({@link expectSoundAnswer}); a rejected input must
 * write and send nothing, and nothing may be logged as an error. Adds the actions that succeeded.
 */
export async function checkFuzzedRequests(
  target: FuzzTarget,
  requests: readonly Record<string, unknown>[],
  succeeded: Set<unknown>,
): Promise<void> {
  for (const fuzzed of requests) {
    const input = withSeededCursors(fuzzed, target.cursors);
    const writesBefore = target.writes.length;
    const messagesBefore = target.messages.length;
    const response = await target.admin(input);
    expectSoundAnswer(input, response);
    if (response.ok) succeeded.add(input.action);
    else if (['invalid_input', 'unknown_action', 'unknown_task'].includes(response.error.code)) {
      expect(target.writes.length).toBe(writesBefore);
      expect(target.messages.length).toBe(messagesBefore);
    }
  }
  expect(target.logs.filter((line) => line.level === 'error')).toEqual([]);
}

/** An error answer stays small whatever the request held (a Lambda answer is at most 6 MB). */
export const MAX_ERROR_JSON_CHARS = 8_000;

/** Checks every answer must pass: well-formed, never internal_error, errors small, payloads storable. */
export function expectSoundAnswer(request: Record<string, unknown>, response: AdminResponse): void {
  if (response.ok) {
    expect(Object.keys(response).sort()).toEqual(['ok', 'result']);
    expectStorablePayloads(response.result);
    if (request.action === 'add_jobs') expectItemAnswers(response.result);
    return;
  }
  expect(typeof response.error.code).toBe('string');
  expect(typeof response.error.message).toBe('string');
  expect(response.error.message.length).toBeGreaterThan(0);
  expect(response.error.code).not.toBe('internal_error');
  expect(JSON.stringify(response.error).length).toBeLessThan(MAX_ERROR_JSON_CHARS);
}

/** Each item's error is small, and one job id is added at most once per call. */
function expectItemAnswers(result: unknown): void {
  const { results } = result as { results: AdminResponse[] };
  const addedIds: string[] = [];
  for (const item of results) {
    if (!item.ok) {
      expect(item.error.code).not.toBe('internal_error');
      expect(JSON.stringify(item.error).length).toBeLessThan(MAX_ERROR_JSON_CHARS);
    } else {
      const { status, job } = item.result as { status: string; job: { id: string } };
      if (status === 'added') addedIds.push(job.id);
    }
  }
  expect(new Set(addedIds).size).toBe(addedIds.length);
}

/**
 * Every payload the API accepted must come back unchanged through DynamoDB's document mapping (how the
 * store keeps it): the in-memory store would keep anything, so this is what finds unstorable input.
 */
function expectStorablePayloads(result: unknown): void {
  const records = result as { job?: { payload?: unknown }; schedule?: { payload?: unknown } };
  for (const record of [records.job, records.schedule]) {
    if (record?.payload === undefined) continue;
    const stored = unmarshall(marshall({ payload: record.payload }, { removeUndefinedValues: true }));
    expect(JSON.stringify(stored.payload)).toBe(JSON.stringify(record.payload));
    expect(Object.getPrototypeOf(stored.payload ?? {})).toBe(Object.getPrototypeOf(record.payload ?? {}));
  }
}

export { ACTION_NAMES };
