import { describe, expect, inject, it } from 'vitest';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { TABLE_ACCESS } from '../../lib/infra/permissions';
import { declaredSchedules } from '../../lib/runtime/code-schedules/declared-schedules';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { createAdminHandler } from '../../lib/runtime/handlers/admin';
import { createCodeSchedulesHandler } from '../../lib/runtime/handlers/code-schedules';
import { createDispatcherHandler } from '../../lib/runtime/handlers/dispatcher';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import { createWorkerHandler } from '../../lib/runtime/handlers/worker';
import { type DeniedCall, guardedDocumentClient } from '../support/table-access-guard';
import { waitFor } from '../support/wait';
import { type RealRuntime, taskRegistry, useLocalServices } from './real-runtime';

const local = useLocalServices();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The runtime's dependencies with a store whose every call is refused, as IAM would, outside `role`'s grants. */
function guardedDeps(
  runtime: RealRuntime,
  role: keyof typeof TABLE_ACCESS,
  denied: DeniedCall[],
): RuntimeDeps {
  const store = new DynamoDbStore({
    client: guardedDocumentClient(inject('dynamodbEndpoint'), TABLE_ACCESS[role], role, denied),
    tableName: runtime.deps.config.tableName,
    shards: runtime.deps.config.shards,
  });
  return { ...runtime.deps, scheduleStore: store, jobStore: store };
}

/**
 * The grants of each Lambda (`TABLE_ACCESS`, lib/infra/permissions.ts) against what its code does: every
 * DynamoDB call of the tick, a dispatcher, the worker and the admin API goes through a client that
 * refuses, as IAM would, anything outside its role's grants. Each role runs its real handler over
 * DynamoDB Local and the SQS emulator, through the paths that touch the most kinds of items.
 */
describe("each Lambda's table access covers every call its code makes", () => {
  it('runs schedules, a final fire, a limited task with a waiting line, a rate-limited task, retries and the admin API within the grants', async () => {
    const sqs = local.sqs();
    const runtime = await local.runtime();
    const denied: DeniedCall[] = [];
    const as = (role: keyof typeof TABLE_ACCESS) => guardedDeps(runtime, role, denied);
    const ran: string[] = [];
    const registry = taskRegistry({
      plain: { handler: (_payload: unknown, { jobId }: { jobId: string }) => void ran.push(jobId) },
      limited: {
        maxRunningJobs: 1,
        handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
          await sleep(300);
          ran.push(jobId);
        },
      },
      paced: {
        rateLimit: { max: 2, perSeconds: 1 },
        handler: (_payload: unknown, { jobId }: { jobId: string }) => void ran.push(jobId),
      },
      failing: {
        retry: { maxAttempts: 2, backoffSeconds: 1 },
        handler: () => {
          throw new Error('fails every time');
        },
      },
    });
    // The tick and its dispatchers run a minute ahead, where the notes of the schedules firing in 880 s
    // are due (read 840 s before their fire); as in AWS, the tick invokes the dispatcher Lambda.
    const ahead = { now: () => Date.now() + 60_000 };
    const deps = {
      tick: as('tick'),
      worker: as('worker'),
      admin: as('admin'),
      dispatcher: { ...as('dispatcher'), clock: ahead },
    };
    const admin = createAdminHandler(() => deps.admin, registry);
    const dispatcher = createDispatcherHandler(() => deps.dispatcher);
    const tick = createTickHandler(() => ({
      ...deps.tick,
      clock: ahead,
      dispatcherInvoker: { invoke: async (request) => void (await dispatcher(request)) },
    }));
    const worker = createWorkerHandler(() => deps.worker, registry);
    const call = async (request: Record<string, unknown>) => {
      const answer = await admin(request, { awsRequestId: `r-${request.action}` });
      expect(
        answer,
        `${JSON.stringify(request)} ${JSON.stringify(answer)} ${JSON.stringify(denied)}`,
      ).toMatchObject({ ok: true });
      return answer;
    };

    // Schedules (some whose first fires the admin call sends itself, one finished by its final fire,
    // one with max_runs, two moved on by the dispatchers' notes) and jobs
    const soon = new Date(Date.now() + 2_000).toISOString();
    const noted = new Date(Date.now() + 880_000).toISOString();
    await call({
      action: 'add_schedule',
      id: 'every',
      task: 'plain',
      trigger: { type: 'interval', seconds: 1 },
    });
    await call({
      action: 'add_schedule',
      id: 'once',
      task: 'plain',
      trigger: { type: 'date', run_at: soon },
    });
    await call({
      action: 'add_schedule',
      id: 'capped',
      task: 'plain',
      trigger: { type: 'interval', seconds: 1 },
      max_runs: 2,
    });
    await call({
      action: 'add_schedule',
      id: 'noted',
      task: 'plain',
      trigger: { type: 'interval', minutes: 20, start_at: noted },
    });
    await call({
      action: 'add_schedule',
      id: 'last',
      task: 'plain',
      trigger: { type: 'date', run_at: noted },
    });
    for (const id of ['l1', 'l2', 'l3']) await call({ action: 'add_job', task: 'limited', job_id: id });
    for (const id of ['p1', 'p2', 'p3']) await call({ action: 'add_job', task: 'paced', job_id: id });
    await call({ action: 'add_job', task: 'failing', job_id: 'f1' });

    // Ticks, a dispatcher and two workers, for a few seconds
    let running = true;
    const poll = async () => {
      while (running) {
        await pollOnce({ client: sqs.client, queueUrl: runtime.queue.queueUrl, waitTimeSeconds: 1 }, worker);
      }
    };
    const ticks = async () => {
      while (running) {
        await tick();
        await sleep(400);
      }
    };
    const loops = [poll(), poll(), ticks()];
    await dispatcher({ owner: 'tick-test', shards: [0, 1, 2], leaseUntil: ahead.now() + 30_000 });
    await sleep(6_000);
    // A loaded machine may need longer for the paced task's jobs and the capped schedule's two fires
    await waitFor(
      async () => ran,
      (ids) =>
        ['l1', 'l2', 'l3', 'p1', 'p2', 'p3'].every((id) => ids.includes(id)) &&
        ids.some((id) => id.startsWith('every@')) &&
        ids.some((id) => id.startsWith('once@')) &&
        ids.filter((id) => id.startsWith('capped@')).length >= 2,
      60_000,
    );
    running = false;
    await Promise.all(loops);

    // The admin API's reads and changes
    await call({ action: 'list_jobs', task: 'plain' });
    await call({ action: 'list_jobs', schedule_id: 'every' });
    await call({ action: 'list_jobs', status: 'error' });
    await call({ action: 'count_jobs', task: 'plain' });
    await call({ action: 'list_tasks' });
    await call({ action: 'list_schedules' });
    await call({ action: 'pause_schedule', id: 'every' });
    await call({ action: 'resume_schedule', id: 'every' });
    await call({ action: 'pause_task', task: 'limited' });
    await call({ action: 'resume_task', task: 'limited' });
    await call({ action: 'retry_job', job_id: 'f1' });
    await call({ action: 'remove_schedule', id: 'every' });
    // Five minutes on, a dispatcher of every shard reads the closing notes of the schedules that finished
    // (their last jobs ended): it removes them (ADR 0011)
    const later = { now: () => Date.now() + 300_000 };
    await createDispatcherHandler(() => ({ ...deps.dispatcher, clock: later }))({
      owner: 'closing',
      shards: Array.from({ length: runtime.deps.config.shards }, (_, shard) => shard),
      leaseUntil: later.now() + 30_000,
    });

    expect(denied).toEqual([]);
    expect(await runtime.store.getSchedule('once')).toBeUndefined();
    expect(await runtime.store.getSchedule('capped')).toBeUndefined();
    expect(ran).toEqual(expect.arrayContaining(['l1', 'l2', 'l3', 'p1', 'p2', 'p3']));
    expect(ran.some((id) => id.startsWith('every@'))).toBe(true);
    expect(ran.some((id) => id.startsWith('once@'))).toBe(true);
    expect(ran.filter((id) => id.startsWith('capped@'))).toHaveLength(2);
    // The dispatchers sent the fires of the notes due a minute ahead, and finished the one-off schedule
    // (read on their clock: the notes they wrote are where a reader a minute ahead looks)
    const listed = await createAdminHandler(
      () => ({ ...deps.admin, clock: ahead }),
      registry,
    )({
      action: 'list_schedules',
    });
    const result = (listed.ok ? listed.result : {}) as {
      schedules?: { id: string; runs: number; finished: boolean }[];
    };
    const schedules = result.schedules ?? [];
    expect(schedules.filter((schedule) => ['last', 'noted'].includes(schedule.id))).toMatchObject([
      { id: 'last', runs: 1, finished: true },
      { id: 'noted', runs: 1, finished: false },
    ]);
  }, 60_000);

  it('reconciles schedules declared in code within the grants of its own role: create, change, pause kept, delete', async () => {
    // As deployed: the change reads the live note of a schedule its chain moved on
    const runtime = await local.runtime();
    const denied: DeniedCall[] = [];
    const guarded = (role: keyof typeof TABLE_ACCESS) => guardedDeps(runtime, role, denied);
    const registry = taskRegistry({ plain: { handler: () => undefined } });
    const responses: string[] = [];
    const reconcile = createCodeSchedulesHandler(() => guarded('schedules'), registry, {
      respond: async (_url, response) => void responses.push(`${response.Status} ${response.Reason}`),
    });
    // As in AWS, the tick invokes the dispatcher Lambda, which runs under its own role
    const dispatcher = createDispatcherHandler(() => guarded('dispatcher'));
    const tick = createTickHandler(() => ({
      ...guarded('tick'),
      dispatcherInvoker: { invoke: async (request) => void (await dispatcher(request)) },
    }));
    const admin = createAdminHandler(() => guarded('admin'), registry);
    const declare = (every: number) =>
      declaredSchedules(registry, [
        { id: 'every', task: 'plain', trigger: { type: 'interval', seconds: every } },
        { id: 'daily', task: 'plain', trigger: '0 9 * * *', timezone: 'Europe/Berlin' },
      ]);
    const request = (type: 'Create' | 'Update' | 'Delete', every: number, old?: number) =>
      ({
        RequestType: type,
        ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:schedules',
        ResponseURL: 'http://127.0.0.1:9/response',
        StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/Shop/1',
        RequestId: `${type}-${every}`,
        LogicalResourceId: 'SundialCodeSchedules',
        ResourceType: 'Custom::SundialSchedules',
        ...(type !== 'Create' && { PhysicalResourceId: 'sundial-code-schedules' }),
        ResourceProperties: {
          ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:schedules',
          Schedules: JSON.stringify(declare(every)),
          MaxRemovalPercent: '50',
          OnDelete: 'remove',
        },
        ...(old !== undefined && {
          OldResourceProperties: { Schedules: JSON.stringify(declare(old)), MaxRemovalPercent: '50' },
        }),
      }) as unknown as Parameters<typeof reconcile>[0];

    await reconcile(request('Create', 1));
    for (let round = 0; round < 3; round++) {
      await tick();
      await sleep(300);
    }
    await admin({ action: 'pause_schedule', id: 'daily' });
    await reconcile(request('Update', 2, 1));
    await reconcile(request('Delete', 2));

    expect(denied).toEqual([]);
    expect(responses.map((response) => response.split(' ')[0])).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect((await admin({ action: 'list_schedules' })) as unknown).toMatchObject({
      ok: true,
      result: { schedules: [] },
    });
  }, 60_000);
});
