import { describe, expect, it } from 'vitest';
import { SECOND, T0 } from '../support';
import {
  dispatchRuntime,
  expectEveryFireOnce,
  expectSentOnceEach,
  interval,
  MINUTE,
} from './dispatch-harness';

describe('schedules changed between two ticks (ADR 0008)', () => {
  it('sends nothing more from the old chain of a paused, removed, updated or replaced schedule', async () => {
    // Prepare: five schedules every 10 s, on their chains for five minutes
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const often = interval(10);
    const every15s = interval(15);
    for (const id of ['paused', 'removed', 'updated', 'retimed', 'replaced', 'kept'])
      await runtime.add(id, often);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE);
    const chains = new Map<string, string | null>();
    for (const id of ['updated', 'retimed', 'replaced']) {
      chains.set(id, (await runtime.store.getSchedule(id))?.chain ?? null);
    }

    // Act: the admin API's changes between two ticks
    const changedAt = runtime.clock.now() - 30 * SECOND;
    runtime.clock.set(changedAt);
    await runtime.admin({ action: 'pause_schedule', id: 'paused' });
    await runtime.admin({ action: 'remove_schedule', id: 'removed' });
    await runtime.admin({ action: 'update_schedule', id: 'updated', payload: { n: 2 } });
    await runtime.admin({ action: 'update_schedule', id: 'retimed', trigger: every15s });
    await runtime.add('replaced', every15s, { conflict_policy: 'replace' });
    runtime.clock.set(changedAt + 30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 20 * MINUTE);

    // Assess: nothing sent for the paused and removed ones; the update's chain goes on under the new
    // version; a new trigger (and a replace) started a new chain, whose fires alone are sent: from the
    // change on (the fire due at that very instant was sent by the old chain, and is counted there)
    const sentAfter = (id: string) => runtime.sentOf(id).filter((s) => s.at >= changedAt);
    expect(sentAfter('paused')).toEqual([]);
    expect(sentAfter('removed')).toEqual([]);
    expect(sentAfter('updated').every((s) => s.message.revision?.version === 2)).toBe(true);
    expectEveryFireOnce(runtime.sentOf('updated'), often, T0 + 20 * MINUTE);
    expectEveryFireOnce(runtime.sentOf('kept'), often, T0 + 20 * MINUTE);
    for (const id of ['retimed', 'replaced']) {
      expectEveryFireOnce(sentAfter(id), every15s, T0 + 20 * MINUTE, changedAt + 1);
      expect(sentAfter(id).every((s) => s.message.revision?.version === 2)).toBe(true);
    }
    expectSentOnceEach(runtime.sent.filter((s) => s.at >= changedAt));
    expect((await runtime.store.getSchedule('updated'))?.chain).toBe(chains.get('updated'));
    expect((await runtime.store.getSchedule('retimed'))?.chain).not.toBe(chains.get('retimed'));
    expect((await runtime.store.getSchedule('replaced'))?.chain).not.toBe(chains.get('replaced'));
    expect(runtime.summaries.reduce((sum, s) => sum + s.notes.staleNotes, 0)).toBeGreaterThanOrEqual(4);
    expect(runtime.summaries.every((s) => s.errors === 0)).toBe(true);
  });

  it('resumes a paused schedule on a new chain from the resume, each fire sent once; its old chain stays stopped', async () => {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const often = interval(10);
    await runtime.add('resumed', often);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE);
    await runtime.admin({ action: 'pause_schedule', id: 'resumed' });
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);
    const pausedChainSends = runtime.sentOf('resumed').filter((s) => s.at >= T0 + 6 * MINUTE);

    const resumedAt = runtime.clock.now() + 25 * SECOND;
    runtime.clock.set(resumedAt);
    await runtime.admin({ action: 'resume_schedule', id: 'resumed' });
    runtime.clock.set(T0 + 12 * MINUTE);
    await runtime.tickEveryMinuteUntil(T0 + 25 * MINUTE);

    expect(pausedChainSends).toEqual([]);
    const afterResume = runtime.sentOf('resumed').filter((s) => s.at >= resumedAt);
    expectEveryFireOnce(afterResume, often, T0 + 25 * MINUTE, resumedAt);
    expectSentOnceEach(afterResume);
  });
});
