import { afterAll, describe, expect, it } from 'vitest';
import type { RuntimeConfig } from '../../lib/runtime/config';
import { buildRuntimeDependencies } from '../../lib/runtime/dependencies';
import { MESSAGE_REFUSED_ERROR } from '../../lib/runtime/flow/refused-messages';
import { createAdminHandler } from '../../lib/runtime/handlers/admin';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import { createTestTable, type TestTable } from '../support/dynamodb';
import { createTestQueue, messagesInQueue } from '../support/sqs';
import { taskRegistry, useLocalServices } from './real-runtime';
import { testConfig } from './support';

const local = useLocalServices();
const tables: TestTable[] = [];
afterAll(async () => {
  await Promise.all(tables.map((table) => table.drop()));
});

interface WireJob {
  id: string;
  status: string;
  result: { outcome: string; error?: { type: string; message: string } } | null;
}

/**
 * The runtime as `buildRuntimeDependencies` wires it, over DynamoDB Local and a queue of the SQS emulator
 * that takes messages of at most 1 KiB: a job with a 2 KB payload is one the queue refuses for good.
 */
async function refusingRuntime() {
  const sqs = local.sqs();
  const [table, queue] = await Promise.all([
    createTestTable('refused'),
    createTestQueue(sqs.client, { maximumMessageSizeBytes: 1024 }),
  ]);
  tables.push(table);
  const logs: Record<string, unknown>[] = [];
  const config: RuntimeConfig = testConfig({ tableName: table.tableName, queueUrl: queue.queueUrl });
  const deps = {
    ...buildRuntimeDependencies(config, {
      dynamodb: table.client,
      sqs: sqs.client,
      logSink: (line) => logs.push(JSON.parse(line)),
    }),
    metricsSink: () => {},
  };
  const registry = taskRegistry({ echo: { handler: (payload: unknown) => payload } });
  const admin = createAdminHandler(() => deps, registry);
  const call = async (request: Record<string, unknown>) =>
    (await admin(request)) as { ok: boolean; result?: Record<string, unknown> };
  return {
    admin: call,
    tick: createTickHandler(() => deps),
    queued: () => messagesInQueue(sqs.client, queue.queueUrl),
    refusals: (jobId: string) =>
      logs.filter((line) => String(line.message).startsWith('the queue refused') && line.jobId === jobId),
    getJob: async (jobId: string) =>
      ((await call({ action: 'get_job', job_id: jobId })).result?.job ?? {}) as WireJob,
  };
}

const LARGE_PAYLOAD = { text: 'x'.repeat(2_000) };

describe('a job whose message the queue refuses for good', () => {
  it('ends at once with an error naming the job and the reason, and the tick does not send it again', async () => {
    // Prepare
    const runtime = await refusingRuntime();

    // Act
    const added = await runtime.admin({
      action: 'add_job',
      task: 'echo',
      job_id: 'too-big',
      payload: LARGE_PAYLOAD,
    });
    await runtime.tick();
    await runtime.tick();
    const job = await runtime.getJob('too-big');

    // Assess: the answer says so, the job ended for good, and nothing was sent again
    expect(added).toMatchObject({ ok: true, result: { status: 'added', queued: 'refused' } });
    expect(added.result?.job).toMatchObject({ id: 'too-big', status: 'error' });
    expect(job.status).toBe('error');
    expect(job.result?.error?.type).toBe(MESSAGE_REFUSED_ERROR);
    expect(job.result?.error?.message).toMatch(
      /^the queue refused the message of job 'too-big' for good, so it cannot run: InvalidParameterValue: .*shorter than 1024 bytes/,
    );
    expect(runtime.refusals('too-big')).toHaveLength(1);
    expect(await runtime.queued()).toBe(0);
  });

  it('answers run_job with the error result rather than a job still queued', async () => {
    // Prepare
    const runtime = await refusingRuntime();

    // Act
    const ran = await runtime.admin({
      action: 'run_job',
      task: 'echo',
      job_id: 'too-big-to-run',
      payload: LARGE_PAYLOAD,
      wait_seconds: 5,
    });

    // Assess
    expect(ran).toMatchObject({
      ok: true,
      result: { job_id: 'too-big-to-run', status: 'error', result: { outcome: 'error' } },
    });
    expect(JSON.stringify(ran.result)).toContain(MESSAGE_REFUSED_ERROR);
  });

  it("ends a schedule's refused fires, and the schedule moves on to its next fires rather than sending them again", async () => {
    // Prepare: fires every 30 s, the first ones within the lookahead
    const runtime = await refusingRuntime();

    // Act
    const added = await runtime.admin({
      action: 'add_schedule',
      id: 'big-fires',
      task: 'echo',
      trigger: { type: 'interval', seconds: 30 },
      payload: LARGE_PAYLOAD,
    });
    await runtime.tick();
    await runtime.tick();
    const listed = await runtime.admin({ action: 'list_jobs', schedule_id: 'big-fires', limit: 100 });
    const jobs = (listed.result?.jobs ?? []) as WireJob[];
    const schedule = await runtime.admin({ action: 'get_schedule', id: 'big-fires' });

    // Assess: every fire sent ended with the queue's refusal, each once, and the schedule goes on
    expect(added.ok).toBe(true);
    const ended = jobs.filter((job) => job.result?.error?.type === MESSAGE_REFUSED_ERROR);
    expect(ended.length).toBeGreaterThan(0);
    expect(ended.every((job) => job.status === 'error')).toBe(true);
    for (const job of ended) expect(runtime.refusals(job.id)).toHaveLength(1);
    const nextFire = Date.parse(
      String((schedule.result?.schedule as { next_fire_time?: string })?.next_fire_time),
    );
    const lastEnded = Math.max(...ended.map((job) => Number(job.id.split('@')[1])));
    expect(nextFire).toBeGreaterThan(lastEnded);
    expect(await runtime.queued()).toBe(0);
  });
});
