import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { type AdminResponse, createAdminApi } from '../../../lib/runtime/admin';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { createHarness, errorOf, type Harness, nightlyBerlin } from './support/harness';
import { harnessOn } from './support/on-dynamodb';

/** The admin API over DynamoDB Local: inputs the in-memory store takes in its stride but DynamoDB does not. */
let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('admin');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});

afterAll(() => table.drop());

const dynamoHarness = () => harnessOn(store);

describe('the admin API on DynamoDB', () => {
  it('answers invalid_input for a payload key named __proto__, at any depth', async () => {
    const h = dynamoHarness();

    const job = errorOf(
      await h.admin(
        JSON.parse('{"action":"add_job","task":"cleanup","job_id":"p1","payload":{"a":[{"__proto__":{}}]}}'),
      ),
    );
    const schedule = errorOf(
      await h.admin({
        ...JSON.parse('{"action":"add_schedule","id":"p2","payload":{"__proto__":1}}'),
        task: 'cleanup',
        trigger: nightlyBerlin,
      }),
    );

    expect(job).toMatchObject({ code: 'invalid_input', details: [{ path: 'payload.a[0].__proto__' }] });
    expect(schedule).toMatchObject({ code: 'invalid_input', details: [{ path: 'payload.__proto__' }] });
    expect(await store.getJob('p1', h.clock.now())).toBeUndefined();
    expect(h.logs).toEqual([]);
  });

  it('answers invalid_input for payload numbers the document client cannot write exactly', async () => {
    const h = dynamoHarness();

    const answers = await Promise.all(
      [2 ** 53, -1e17, 1.5e20].map((n, index) =>
        h.admin({ action: 'add_job', task: 'cleanup', job_id: `big-${index}`, payload: { list: [n] } }),
      ),
    );
    const largest = await h.admin({
      action: 'add_job',
      task: 'cleanup',
      job_id: 'largest',
      payload: { n: Number.MAX_SAFE_INTEGER, m: -Number.MAX_SAFE_INTEGER, tiny: 1e-130 },
    });

    expect(answers.map((answer) => errorOf(answer).details)).toEqual(
      answers.map(() => [{ path: 'payload.list[0]', message: expect.stringContaining('9007199254740991') }]),
    );
    expect(largest.ok).toBe(true);
    expect(await h.ok({ action: 'get_job', job_id: 'largest' })).toMatchObject({
      job: { payload: { n: Number.MAX_SAFE_INTEGER, m: -Number.MAX_SAFE_INTEGER, tiny: 1e-130 } },
    });
    expect(h.logs).toEqual([]);
  });

  it('answers invalid_input for a payload key DynamoDB cannot store (64 KiB or more)', async () => {
    const h = dynamoHarness();
    const longest = 'k'.repeat(65_535);

    const tooLong = await h.admin({
      action: 'add_job',
      task: 'cleanup',
      payload: { a: { [`${longest}k`]: 1 } },
    });
    const accepted = await h.admin({ action: 'add_job', task: 'cleanup', payload: { [longest]: 1 } });

    expect(errorOf(tooLong).details).toEqual([
      {
        path: expect.stringMatching(/^payload\.a\.k{60}… \(65536 characters\)$/),
        message: 'must not be a key longer than 65535 bytes (UTF-8)',
      },
    ]);
    expect(accepted.ok).toBe(true);
    expect(h.logs).toEqual([]);
  });

  it('answers invalid_input on cursor for tampered and foreign cursors', async () => {
    const h = dynamoHarness();
    for (const id of ['c1', 'c2', 'c3']) {
      await h.ok({ action: 'add_schedule', id, task: 'cleanup', trigger: nightlyBerlin });
      await h.ok({ action: 'add_job', task: 'cleanup', job_id: `cursor-${id}` });
    }
    const schedulePage = await h.ok<{ cursor: string }>({ action: 'list_schedules', limit: 1 });
    const jobPage = await h.ok<{ cursor: string }>({ action: 'list_jobs', task: 'cleanup', limit: 1 });
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const tampered = [
      encoded({}),
      encoded({ pk: 1 }),
      encoded({ kind: 'schedule', pk: 'x', sk: 'y' }),
      encoded({ kind: { a: 1 }, pk: 'x', sk: 'y' }),
      encoded({ task: 'cleanup', runAt: 'soon', pk: 'JOB#x', sk: 'JOB' }),
    ];
    const requests = [
      { action: 'list_jobs', task: 'cleanup', cursor: schedulePage.cursor },
      { action: 'list_jobs', task: 'send-report', cursor: jobPage.cursor },
      { action: 'list_jobs', schedule_id: 'c1', cursor: jobPage.cursor },
      { action: 'list_jobs', task: 'cleanup', status: 'queued', cursor: jobPage.cursor },
      { action: 'list_schedules', cursor: jobPage.cursor },
      { action: 'list_schedules', task: 'cleanup', cursor: schedulePage.cursor },
      ...tampered.flatMap((cursor) => [
        { action: 'list_schedules', cursor },
        { action: 'list_jobs', task: 'cleanup', cursor },
      ]),
    ];

    const answers = await Promise.all(requests.map((request) => h.admin(request)));

    expect(answers.map((answer) => errorOf(answer).details)).toEqual(
      requests.map(() => [
        { path: 'cursor', message: expect.stringContaining('is not a cursor of this listing') },
      ]),
    );
    expect(h.logs).toEqual([]);
  });

  it.each([
    ['exception', ['added', 'conflicting_id'], 1],
    ['do_nothing', ['added', 'kept'], 1],
    ['replace', ['added', 'replaced'], 2],
  ] as const)(
    'answers the second of one job id twice in add_jobs as two add_job calls would (%s)',
    async (policy, statuses, sent) => {
      const h = dynamoHarness();
      const id = `twice-${policy}`;

      const result = await h.ok<{ results: AdminResponse[] }>({
        action: 'add_jobs',
        jobs: [
          { task: 'cleanup', job_id: id, conflict_policy: policy },
          { task: 'cleanup', job_id: id, conflict_policy: policy },
        ],
      });

      expect(
        result.results.map((item) =>
          item.ok ? (item.result as { status: string }).status : item.error.code,
        ),
      ).toEqual(statuses);
      expect(h.queue.messages.filter((message) => message.job.id === id)).toHaveLength(sent);
    },
  );

  it('answers conflicting_id to a second identical add_job in the same millisecond', async () => {
    const h = dynamoHarness();
    const request = { action: 'add_job', task: 'cleanup', job_id: 'same-ms', payload: { n: 1 } };

    const first = await h.admin(request);
    const second = await h.admin(request);

    expect(first.ok).toBe(true);
    expect(errorOf(second).code).toBe('conflicting_id');
    expect(h.queue.messages.filter((message) => message.job.id === 'same-ms')).toHaveLength(1);
  });
});

describe('waiting for results and retrying failed jobs on DynamoDB', () => {
  /** Runs the job the queue got last, as a worker would, ending it as `outcome`. */
  async function runQueuedJob(h: Harness, outcome: 'success' | 'error') {
    const message = h.queue.messages.at(-1);
    if (!message) throw new Error('nothing was sent');
    const now = h.clock.now();
    await store.claimJob({
      job: message.job,
      attempt: message.attempt,
      owner: 'w',
      now,
      leaseUntil: now + 60_000,
    });
    await store.finishJob({
      jobId: message.job.id,
      owner: 'w',
      result: {
        outcome,
        ...(outcome === 'error' ? { error: { type: 'Boom', message: 'broke' } } : { returnValue: { ok: 1 } }),
        startedAt: now,
        finishedAt: now + 1_000,
        attempt: message.attempt,
      },
      expiresAt: now + 3_600_000,
    });
  }

  it('run_job answers the result once a worker wrote it, then retry_job runs it again once', async () => {
    // The harness itself (not a copy): its `onPause` runs while a call waits.
    const h = createHarness();
    const admin = createAdminApi({ ...h.deps, scheduleStore: store, jobStore: store });
    h.onPause = async (count) => {
      if (count === 2) await runQueuedJob(h, 'error');
    };

    const ran = await admin({ action: 'run_job', task: 'cleanup', job_id: 'ddb-run', wait_seconds: 5 });
    const failed = await admin({ action: 'list_jobs', status: 'error' });
    const [retried, again] = await Promise.all([
      admin({ action: 'retry_job', job_id: 'ddb-run' }),
      admin({ action: 'retry_job', job_id: 'ddb-run' }),
    ]);
    const pausesBefore = h.pauses.length;
    h.onPause = async (count) => {
      if (count === pausesBefore + 1) await runQueuedJob(h, 'success');
    };
    const result = await admin({ action: 'get_job_result', job_id: 'ddb-run', wait_seconds: 5 });
    const job = await admin({ action: 'get_job', job_id: 'ddb-run' });

    expect(ran).toMatchObject({ ok: true, result: { status: 'error', result: { attempt: 1 } } });
    expect(failed).toMatchObject({ ok: true, result: { jobs: [{ id: 'ddb-run' }] } });
    expect([retried, again].filter((answer) => answer.ok)).toHaveLength(1);
    expect([retried, again].flatMap((answer) => (answer.ok ? [] : [answer.error.code]))).toEqual([
      'job_not_retryable',
    ]);
    expect(h.queue.messages.map((message) => message.attempt)).toEqual([1, 2]);
    expect(result).toMatchObject({ ok: true, result: { status: 'success', result: { attempt: 2 } } });
    expect(job).toMatchObject({
      ok: true,
      result: { job: { attempt: 2, history: [{ outcome: 'error', attempt: 1 }] } },
    });
  });
});
