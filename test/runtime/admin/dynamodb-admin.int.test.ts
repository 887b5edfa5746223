import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { type AdminResponse, createAdminApi } from '../../../lib/runtime/admin';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { createHarness, errorOf, nightlyBerlin } from './support/harness';

/** The admin API over DynamoDB Local: inputs the in-memory store takes in its stride but DynamoDB does not. */
let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('admin');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});

afterAll(() => table.drop());

/** The test harness (queue, clock, logs, tasks) with the admin API on the DynamoDB store. */
function dynamoHarness() {
  const h = createHarness();
  const admin = createAdminApi({ ...h.deps, scheduleStore: store, jobStore: store });
  return {
    ...h,
    admin,
    async ok<Result>(request: Record<string, unknown>): Promise<Result> {
      const response = await admin(request);
      if (!response.ok) throw new Error(`expected success: ${JSON.stringify(response.error)}`);
      return response.result as Result;
    },
  };
}

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
