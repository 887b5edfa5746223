import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { WireSchedule } from '../../../lib/core/admin-contract';
import type { AppScheduleDeclaration } from '../../../lib/core/code-schedules/declaration';
import { canonicalJson, type DesiredSchedule } from '../../../lib/core/code-schedules/desired';
import { localLambdaContext } from '../../../lib/local/lambda-context';
import { declaredSchedules } from '../../../lib/runtime/code-schedules/declared-schedules';
import { planReconcile } from '../../../lib/runtime/code-schedules/reconcile';
import { adminDependencies, createAdminHandler } from '../../../lib/runtime/handlers/admin';
import { createCodeSchedulesLambdaHandler } from '../../../lib/runtime/lambda/code-schedules';
import type { TaskRegistry } from '../../../lib/runtime/tasks/registry';
import { type RealRuntime, taskRegistry, useLocalServices } from '../real-runtime';
import type { RecordingPublisher } from '../support';
import { cloudFormationRequest, type Properties, startResponseEndpoint } from './cloudformation';
import { hourly, morning, nightly } from './declarations';

const local = useLocalServices();
let endpoint: Awaited<ReturnType<typeof startResponseEndpoint>>;
beforeAll(async () => {
  endpoint = await startResponseEndpoint();
});
afterAll(async () => {
  await endpoint?.close();
});

const registry: TaskRegistry = taskRegistry({
  'send-report': { payloadSchema: z.object({ team: z.string() }), handler: () => undefined },
  cleanup: { handler: () => undefined },
});
const declare = (declarations: readonly AppScheduleDeclaration[]): DesiredSchedule[] =>
  declaredSchedules(registry, declarations);

/** The stack's Lambda over a table of its own, as CloudFormation calls it; and the admin API beside it. */
async function stack() {
  const runtime: RealRuntime = await local.runtime();
  const lambda = createCodeSchedulesLambdaHandler(() => runtime.deps, registry);
  const admin = createAdminHandler(() => runtime.deps, registry);
  const send = async (
    type: 'Create' | 'Update' | 'Delete',
    properties: Properties,
    options: Parameters<typeof cloudFormationRequest>[3] = {},
  ) => {
    const request = cloudFormationRequest(type, endpoint.url, properties, options);
    const answered = () =>
      endpoint.responses.filter((response) => response.body.RequestId === request.RequestId);
    const before = answered().length;
    await lambda(request, localLambdaContext('Shop-SundialSchedulesFunction', 600_000));
    expect(answered().length, 'one response per request').toBe(before + 1);
    return { request, response: answered()[before] };
  };
  const schedules = async () => {
    const answer = await admin({ action: 'list_schedules', limit: 500 });
    if (!answer.ok) throw new Error(JSON.stringify(answer.error));
    return (answer.result as { schedules: WireSchedule[] }).schedules;
  };
  const events = () => (runtime.deps.events as RecordingPublisher).events;
  return { runtime, send, admin, schedules, events };
}

describe('the custom resource of schedules declared in code, driven as CloudFormation drives it', () => {
  it('creates the declared schedules on Create and answers SUCCESS on the response URL', async () => {
    const { send, schedules, events } = await stack();

    const { request, response } = await send('Create', { schedules: declare([morning('ops'), hourly]) });

    expect(response).toMatchObject({
      method: 'PUT',
      path: new URL(request.ResponseURL).pathname + new URL(request.ResponseURL).search,
      contentType: undefined,
      body: {
        Status: 'SUCCESS',
        PhysicalResourceId: 'sundial-code-schedules',
        StackId: request.StackId,
        RequestId: request.RequestId,
        LogicalResourceId: request.LogicalResourceId,
        Reason: expect.stringMatching(/^created 2, updated 0, removed 0, unchanged 0/),
      },
    });
    expect((await schedules()).map((schedule) => [schedule.id, schedule.managed_by?.deployment])).toEqual([
      ['hourly', `cloudformation Shop ${request.RequestId}`],
      ['morning', `cloudformation Shop ${request.RequestId}`],
    ]);
    expect(events().map((event) => 'deployment' in event && event.deployment)).toEqual([
      `cloudformation Shop ${request.RequestId}`,
      `cloudformation Shop ${request.RequestId}`,
    ]);
  });

  it('on Update creates what was added, changes what was changed and removes what was removed; a pause stays and shows as drift', async () => {
    const { runtime, send, admin, schedules } = await stack();
    const first = { schedules: declare([morning('ops'), hourly, nightly]) };
    await send('Create', first);
    await admin({ action: 'pause_schedule', id: 'nightly' });
    const second = {
      schedules: declare([
        morning('sales', '30 8 * * *'),
        { ...nightly, description: 'nightly cleanup' },
        {
          ...hourly,
          id: 'every-ten-minutes',
          trigger: 'rate(10 minutes)',
        },
      ]),
    };

    const plan = await planReconcile(adminDependencies(runtime.deps, registry), second.schedules, {
      maxRemovalPercent: 50,
    });
    const { response } = await send('Update', second, { old: first });

    expect(plan.plan).toMatchObject({
      create: [{ id: 'every-ten-minutes' }],
      update: [
        { id: 'morning', changes: [{ field: 'trigger' }, { field: 'payload' }] },
        { id: 'nightly', changes: [{ field: 'description', before: null, after: 'nightly cleanup' }] },
      ],
      remove: [{ id: 'hourly' }],
      drift: [{ id: 'nightly', kind: 'paused', by: 'the admin API' }],
    });
    expect(response?.body).toMatchObject({
      Status: 'SUCCESS',
      Reason: expect.stringMatching(/^created 1, updated 2, removed 1, unchanged 0/),
    });
    const stored = await schedules();
    expect(stored.map((schedule) => schedule.id)).toEqual(['every-ten-minutes', 'morning', 'nightly']);
    expect(stored.find((schedule) => schedule.id === 'morning')).toMatchObject({
      trigger: { type: 'cron', expression: '30 8 * * *', timezone: 'Europe/Berlin' },
      payload: { team: 'sales' },
    });
    expect(stored.find((schedule) => schedule.id === 'nightly')).toMatchObject({
      paused: true,
      description: 'nightly cleanup',
    });
  });

  it('answers FAILED with the reason and changes nothing when the reconcile is refused', async () => {
    const { send, admin, schedules, events } = await stack();
    const first = { schedules: declare([morning('ops'), hourly, nightly]) };
    await send('Create', first);
    await admin({
      action: 'add_schedule',
      id: 'adhoc',
      task: 'cleanup',
      trigger: { type: 'interval', hours: 6 },
    });
    const before = await schedules();
    const published = events().length;

    const clash = await send(
      'Update',
      { schedules: declare([morning('ops'), hourly, nightly, { ...hourly, id: 'adhoc' }]) },
      { old: first },
    );
    const tooMany = await send('Update', { schedules: declare([morning('sales')]) }, { old: first });
    const stale = first.schedules.map((schedule) =>
      schedule.id === 'morning'
        ? { ...schedule, fields: { ...schedule.fields, payload: { team: 7 } } }
        : schedule,
    );
    const invalid = await send('Update', { schedules: stale }, { old: first });

    expect([clash, tooMany, invalid].map(({ response }) => response?.body.Status)).toEqual([
      'FAILED',
      'FAILED',
      'FAILED',
    ]);
    expect(clash.response?.body.Reason).toContain(
      "schedule 'adhoc' exists and is managed through the admin API, so code cannot declare it",
    );
    expect(tooMany.response?.body.Reason).toContain(
      'this deploy would remove 2 of the 3 schedules declared in code (hourly, nightly)',
    );
    expect(invalid.response?.body.Reason).toMatch(/schedule 'morning' \(.*\): payload\.team: /);
    expect(invalid.response?.body.PhysicalResourceId).toBe('sundial-code-schedules');
    expect(await schedules()).toEqual(before);
    expect(events().length).toBe(published);
  });

  it('answers a replayed request again, changing nothing twice', async () => {
    const { send, schedules, events } = await stack();
    const properties = { schedules: declare([morning('ops'), hourly]) };

    const first = await send('Create', properties, { requestId: 'same-request' });
    const stored = await schedules();
    const published = events().length;
    const replay = await send('Create', properties, { requestId: 'same-request' });

    expect(replay.response?.body).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: first.response?.body.PhysicalResourceId,
      Reason: expect.stringMatching(/^created 0, updated 0, removed 0, unchanged 2/),
    });
    expect(await schedules()).toEqual(stored);
    expect(events().length).toBe(published);
  });

  it('on Delete removes the schedules declared in code (or keeps them, as the stack says), and nothing after a failed Create', async () => {
    const { send, admin, schedules } = await stack();
    await admin({
      action: 'add_schedule',
      id: 'adhoc',
      task: 'cleanup',
      trigger: { type: 'interval', hours: 6 },
    });
    const properties = { schedules: declare([morning('ops'), hourly]) };
    const failedCreate = await send('Create', { schedules: declare([{ ...hourly, id: 'adhoc' }]) });
    const afterFailedCreate = await send('Delete', properties, {
      physicalResourceId: failedCreate.response?.body.PhysicalResourceId ?? '',
    });
    await send('Create', properties);

    const kept = await send('Delete', { ...properties, onDelete: 'keep' });
    const keptIds = (await schedules()).map((schedule) => schedule.id);
    const removed = await send('Delete', properties);

    expect(failedCreate.response?.body).toMatchObject({
      Status: 'FAILED',
      PhysicalResourceId: 'sundial-code-schedules-not-created',
    });
    expect(afterFailedCreate.response?.body).toMatchObject({
      Status: 'SUCCESS',
      Reason: 'nothing was created',
    });
    expect(kept.response?.body.Status).toBe('SUCCESS');
    expect(keptIds).toEqual(['adhoc', 'hourly', 'morning']);
    expect(removed.response?.body).toMatchObject({
      Status: 'SUCCESS',
      Reason: 'removed 2 schedules declared in code',
    });
    expect((await schedules()).map((schedule) => schedule.id)).toEqual(['adhoc']);
  });

  it('never leaves a schedule duplicated or half-written when two deploys overlap', async () => {
    const { send, schedules } = await stack();
    const base = { schedules: declare([morning('ops'), hourly, nightly]) };
    await send('Create', base);
    const versions = {
      a: declare([
        morning('team-a', '0 7 * * *'),
        { ...hourly, description: 'from a', tags: ['a'] },
        nightly,
      ]),
      b: declare([
        morning('team-b', '0 19 * * *'),
        { ...hourly, description: 'from b', tags: ['b'] },
        { ...nightly, description: 'from b' },
        { ...hourly, id: 'only-in-b' },
      ]),
    };

    const [a, b] = await Promise.all([
      send('Update', { schedules: versions.a }, { old: base }),
      send('Update', { schedules: versions.b }, { old: base }),
    ]);

    expect([a.response?.body.Status, b.response?.body.Status]).toEqual(['SUCCESS', 'SUCCESS']);
    const stored = await schedules();
    expect(new Set(stored.map((schedule) => schedule.id)).size).toBe(stored.length);
    for (const schedule of stored) {
      const candidates = [...versions.a, ...versions.b].filter((declared) => declared.id === schedule.id);
      const whole = candidates.some((declared) =>
        Object.entries(declared.fields).every(
          ([field, value]) => canonicalJson(storedField(schedule, field)) === canonicalJson(value),
        ),
      );
      expect(whole, `${schedule.id} is one deploy’s declaration, whole`).toBe(true);
    }
  });
});

function storedField(schedule: WireSchedule, field: string): unknown {
  if (field === 'priority') return schedule.priority ?? 'normal';
  return (schedule as unknown as Record<string, unknown>)[field];
}
