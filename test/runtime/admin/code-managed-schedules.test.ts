import { describe, expect, it } from 'vitest';
import type { CodeManagement } from '../../../lib/core/model/schedule';
import { adminChainStarter } from '../../../lib/runtime/admin/chains';
import type { ActionContext } from '../../../lib/runtime/admin/context';
import { addSchedule } from '../../../lib/runtime/admin/use-cases/schedules';
import { createHarness, errorOf, type Harness, nightlyBerlin, T0 } from './support/harness';

const BY_CODE: CodeManagement = {
  declaredIn: 'functions/send-report.ts',
  deployment: 'cloudformation Shop request 1',
  fingerprint: 'f1',
  addedIn: 'r1',
  addedOver: 'r0',
};

/** A request context as the reconcile of schedules declared in code makes one (`management` aside). */
function codeContext(h: Harness): Omit<ActionContext, 'management'> {
  return { deps: h.deps, now: T0, requestId: 'r', newId: () => 'x', chains: adminChainStarter(h.deps) };
}

/** Adds `nightly` as the reconcile of schedules declared in code does: through the use case, as code. */
async function addDeclared(h: Harness): Promise<void> {
  await addSchedule(
    { id: 'nightly', task: 'send-report', trigger: nightlyBerlin, payload: { team: 'ops' } },
    { ...codeContext(h), management: BY_CODE },
  );
}

describe('a schedule declared in code, through the admin API', () => {
  it('shows who manages it and where it is declared', async () => {
    const h = createHarness();
    await addDeclared(h);

    const { schedule } = await h.ok<{ schedule: Record<string, unknown> }>({
      action: 'get_schedule',
      id: 'nightly',
    });

    expect(schedule.managed_by).toEqual({
      declared_in: 'functions/send-report.ts',
      deployment: 'cloudformation Shop request 1',
      fingerprint: 'f1',
      added_in: 'r1',
      added_over: 'r0',
    });
    expect(h.events.events).toMatchObject([
      { type: 'schedule.added', scheduleId: 'nightly', deployment: 'cloudformation Shop request 1' },
    ]);
  });

  it('refuses to change, replace or remove its definition, naming where it is declared, and writes nothing', async () => {
    const h = createHarness();
    await addDeclared(h);
    const before = await h.store.getSchedule('nightly');
    h.writes.length = 0;

    const answers = [
      await h.call({ action: 'update_schedule', id: 'nightly', payload: { team: 'sales' } }),
      await h.call({ action: 'remove_schedule', id: 'nightly' }),
      await h.call({
        action: 'add_schedule',
        id: 'nightly',
        task: 'send-report',
        trigger: nightlyBerlin,
        payload: { team: 'sales' },
        conflict_policy: 'replace',
      }),
    ];

    for (const answer of answers) {
      expect(errorOf(answer)).toEqual({
        code: 'managed_by_code',
        message:
          "schedule 'nightly' is declared in code (functions/send-report.ts): change or remove it there and deploy; pause_schedule, resume_schedule and run_schedule_now still work on it",
      });
    }
    expect(h.writes).toEqual([]);
    expect(await h.store.getSchedule('nightly')).toEqual(before);
  });

  it('pauses, resumes and runs it now: operational state, not its definition', async () => {
    const h = createHarness();
    await addDeclared(h);

    const paused = await h.call({ action: 'pause_schedule', id: 'nightly' });
    const resumed = await h.call({ action: 'resume_schedule', id: 'nightly' });
    const run = await h.call({ action: 'run_schedule_now', id: 'nightly' });

    expect([paused.ok, resumed.ok, run.ok]).toEqual([true, true, true]);
    expect((await h.store.getSchedule('nightly'))?.managedBy).toEqual(BY_CODE);
  });

  it('does not let code take over a schedule added through the admin API', async () => {
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: 'nightly',
      task: 'send-report',
      trigger: nightlyBerlin,
      payload: { team: 'ops' },
    });

    const taken = addSchedule(
      {
        id: 'nightly',
        task: 'send-report',
        trigger: nightlyBerlin,
        payload: { team: 'ops' },
        conflict_policy: 'replace',
      },
      { ...codeContext(h), management: BY_CODE },
    );

    await expect(taken).rejects.toThrow(
      "schedule 'nightly' exists and is managed through the admin API, so code cannot declare it",
    );
    expect((await h.store.getSchedule('nightly'))?.managedBy).toBeUndefined();
  });
});
