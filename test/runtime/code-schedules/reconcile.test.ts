import { describe, expect, it } from 'vitest';
import type { AppScheduleDeclaration } from '../../../lib/core/code-schedules/declaration';
import type { DesiredSchedule } from '../../../lib/core/code-schedules/desired';
import { declaredSchedules } from '../../../lib/runtime/code-schedules/declared-schedules';
import {
  planReconcile,
  ReconcileRefusedError,
  reconcileSchedules,
} from '../../../lib/runtime/code-schedules/reconcile';
import { createHarness, type Harness, MINUTE } from '../admin/support/harness';
import { hourly, morning, nightly } from './declarations';

const DEPLOY = { deployment: 'deploy-1', maxRemovalPercent: 50 };

/** Declarations of the CDK app over the harness's tasks (`send-report` checks `{ team }`, and `cleanup`). */
function declared(h: Harness, declarations: readonly AppScheduleDeclaration[]): DesiredSchedule[] {
  return declaredSchedules(h.deps.tasks, declarations);
}

async function refusal(run: Promise<unknown>): Promise<readonly string[]> {
  const error = await run.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof ReconcileRefusedError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.problems;
}

describe('reconciling the schedules declared in code', () => {
  it('creates them as declared, managed by code, and a second run changes nothing', async () => {
    const h = createHarness();
    const desired = declared(h, [morning(), hourly]);

    const first = await reconcileSchedules(h.deps, desired, DEPLOY);
    const writes = h.writes.length;
    const events = h.events.events.length;
    const second = await reconcileSchedules(h.deps, desired, { ...DEPLOY, deployment: 'deploy-2' });

    expect(first).toMatchObject({ created: ['hourly', 'morning'], updated: [], removed: [], unchanged: 0 });
    expect(second).toMatchObject({ created: [], updated: [], removed: [], unchanged: 2 });
    expect(h.writes.length).toBe(writes);
    expect(h.events.events.length).toBe(events);
    expect(await h.store.getSchedule('morning')).toMatchObject({
      task: 'send-report',
      trigger: { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Berlin' },
      payload: { team: 'ops' },
      keepFinished: true,
      managedBy: { declaredIn: 'the CDK app (Sundial schedules prop)', deployment: 'deploy-1' },
    });
    expect(h.events.events.map((event) => [event.type, 'deployment' in event && event.deployment])).toEqual([
      ['schedule.added', 'deploy-1'],
      ['schedule.added', 'deploy-1'],
    ]);
  });

  it('changes a changed schedule and removes a removed one, removals last', async () => {
    const h = createHarness();
    await reconcileSchedules(h.deps, declared(h, [morning(), hourly, nightly]), DEPLOY);
    h.events.events.length = 0;

    const report = await reconcileSchedules(
      h.deps,
      declared(h, [morning('sales', '30 8 * * *'), nightly, { ...hourly, id: 'half-hourly' }]),
      DEPLOY,
    );

    expect(report).toMatchObject({
      created: ['half-hourly'],
      updated: [{ id: 'morning', fields: ['trigger', 'payload'] }],
      removed: ['hourly'],
    });
    expect(h.events.events.map((event) => [event.type, 'scheduleId' in event && event.scheduleId])).toEqual([
      ['schedule.added', 'half-hourly'],
      ['schedule.updated', 'morning'],
      ['schedule.removed', 'hourly'],
    ]);
    expect(await h.store.getSchedule('morning')).toMatchObject({
      trigger: { type: 'cron', expression: '30 8 * * *', timezone: 'Europe/Berlin' },
      payload: { team: 'sales' },
      version: 2,
    });
    expect(await h.store.getSchedule('hourly')).toBeUndefined();
  });

  it('keeps a pause across reconciles, changes and all, and shows it as drift', async () => {
    const h = createHarness();
    await reconcileSchedules(h.deps, declared(h, [morning()]), DEPLOY);
    await h.ok({ action: 'pause_schedule', id: 'morning' });
    h.clock.advance(MINUTE);

    const report = await reconcileSchedules(h.deps, declared(h, [morning('sales')]), DEPLOY);

    expect(report.updated).toEqual([{ id: 'morning', fields: ['payload'] }]);
    expect(report.drift).toEqual([
      { id: 'morning', kind: 'paused', by: 'the admin API', at: '2026-03-02T09:00:00Z' },
    ]);
    expect(await h.store.getSchedule('morning')).toMatchObject({ paused: true, payload: { team: 'sales' } });
  });

  it('shows a schedule edited outside Sundial as drift, and writes its declaration again', async () => {
    const h = createHarness();
    const desired = declared(h, [morning()]);
    await reconcileSchedules(h.deps, desired, DEPLOY);
    h.clock.advance(MINUTE);
    // Straight into the table, as someone with write access to it could: the admin API refuses it
    await h.store.updateSchedule({
      id: 'morning',
      changes: { payload: { team: 'by-hand' } },
      now: h.clock.now(),
      expectedVersion: 1,
    });

    const { plan } = await planReconcile(h.deps, desired, DEPLOY);
    const report = await reconcileSchedules(h.deps, desired, DEPLOY);

    expect(plan.drift).toEqual([
      {
        id: 'morning',
        kind: 'edited',
        by: 'outside Sundial (its admin API refuses to change a schedule declared in code)',
        at: '2026-03-02T09:01:00Z',
      },
    ]);
    expect(plan.update).toMatchObject([
      { id: 'morning', changes: [{ field: 'payload', before: { team: 'by-hand' }, after: { team: 'ops' } }] },
    ]);
    expect(report.updated).toEqual([{ id: 'morning', fields: ['payload'] }]);
    expect((await planReconcile(h.deps, desired, DEPLOY)).plan.drift).toEqual([]);
  });

  it('refuses an id the admin API manages, and writes nothing', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'nightly',
      task: 'cleanup',
      trigger: { type: 'interval', hours: 2 },
    });
    h.writes.length = 0;

    const problems = await refusal(reconcileSchedules(h.deps, declared(h, [hourly, nightly]), DEPLOY));

    expect(problems).toEqual([
      "schedule 'nightly' exists and is managed through the admin API, so code cannot declare it: rename the declaration, or remove that schedule (remove_schedule) and deploy again",
    ]);
    expect(h.writes).toEqual([]);
  });

  it('refuses to remove more than the allowed share, or all, of the schedules declared in code, unless allowed', async () => {
    const h = createHarness();
    await reconcileSchedules(h.deps, declared(h, [morning(), hourly, nightly]), DEPLOY);
    h.writes.length = 0;

    const tooMany = await refusal(reconcileSchedules(h.deps, declared(h, [nightly]), DEPLOY));
    const all = await refusal(reconcileSchedules(h.deps, [], { ...DEPLOY, maxRemovalPercent: 99 }));
    const writes = [...h.writes];
    const allowed = await reconcileSchedules(h.deps, declared(h, [nightly]), {
      ...DEPLOY,
      maxRemovalPercent: 100,
    });

    expect(tooMany).toEqual([
      'this deploy would remove 2 of the 3 schedules declared in code (hourly, morning); at most 50 % may go in one deploy, and never all: if that is intended, raise maxScheduleRemovalPercent (100 allows it)',
    ]);
    expect(all).toEqual([expect.stringMatching(/^this deploy would remove all schedules declared in code/)]);
    expect(writes).toEqual([]);
    expect(allowed.removed).toEqual(['hourly', 'morning']);
  });

  it('does not count removing what the replaced deploy added when going back to what it replaced: its rollback goes through', async () => {
    const h = createHarness();
    const before = declared(h, [nightly]);
    const first = await reconcileSchedules(h.deps, before, DEPLOY);
    const failedDeploy = declared(h, [nightly, morning(), hourly]);
    const added = await reconcileSchedules(h.deps, failedDeploy, {
      ...DEPLOY,
      previousRevision: first.revision,
    });

    const elsewhere = await refusal(
      reconcileSchedules(h.deps, declared(h, [{ ...nightly, description: 'changed' }]), {
        ...DEPLOY,
        previousRevision: added.revision,
      }),
    );
    const rollback = await reconcileSchedules(h.deps, before, {
      ...DEPLOY,
      previousRevision: added.revision,
    });

    expect(elsewhere).toEqual([expect.stringMatching(/^this deploy would remove 2 of the 3 schedules/)]);
    expect(rollback.removed).toEqual(['hourly', 'morning']);
  });

  it('refuses a declaration the tasks no longer accept, or a new trigger without a fire time left, and writes nothing', async () => {
    const h = createHarness();
    const desired = declared(h, [morning()]);
    const stale = desired.map((schedule) => ({
      ...schedule,
      fields: { ...schedule.fields, payload: { team: 7 } },
    }));
    const over = declared(h, [
      { id: 'once', task: 'cleanup', trigger: { type: 'date', run_at: '2020-01-01T00:00:00Z' } },
    ]);

    const problems = [
      ...(await refusal(reconcileSchedules(h.deps, stale, DEPLOY))),
      ...(await refusal(reconcileSchedules(h.deps, over, DEPLOY))),
    ];

    expect(problems).toEqual([
      expect.stringMatching(
        /^schedule 'morning' \(the CDK app \(Sundial schedules prop\)\): payload\.team: /,
      ),
      "schedule 'once' (the CDK app (Sundial schedules prop)): trigger: has no fire time left; remove the declaration, or give it a trigger that fires again",
    ]);
    expect(h.writes).toEqual([]);
  });

  it('plans without writing: field by field, with the next fire times before and after', async () => {
    const h = createHarness();
    await reconcileSchedules(h.deps, declared(h, [morning()]), DEPLOY);
    h.writes.length = 0;

    const { plan, refused } = await planReconcile(
      h.deps,
      declared(h, [{ ...morning(), timezone: 'America/New_York' }]),
      DEPLOY,
    );

    expect(refused).toBeUndefined();
    expect(h.writes).toEqual([]);
    expect(plan.update).toMatchObject([
      {
        id: 'morning',
        changes: [
          {
            field: 'trigger',
            before: { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Berlin' },
            after: { type: 'cron', expression: '0 9 * * *', timezone: 'America/New_York' },
          },
        ],
        fireTimesBefore: {
          timezone: 'Europe/Berlin',
          times: [{ utc: '2026-03-03T08:00:00Z', local: '2026-03-03T09:00:00+01:00' }, {}, {}],
        },
        fireTimesAfter: {
          timezone: 'America/New_York',
          times: [{ utc: '2026-03-02T14:00:00Z', local: '2026-03-02T09:00:00-05:00' }, {}, {}],
        },
      },
    ]);
  });
});
