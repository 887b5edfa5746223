import { describe, expect, it } from 'vitest';
import { createAdminHandler } from '../../../lib/runtime/handlers/admin';
import { testTasks } from '../admin/support/harness';
import { SECOND, T0 } from '../support';
import { expectEveryFireOnce, fireTimes, interval, MINUTE, notesRuntime } from './notes-harness';

describe('due notes: schedules changed, removed or ending while on notes (ADR 0007)', () => {
  it('sends nothing more from the old notes of a paused, removed or updated schedule', async () => {
    // Prepare: four schedules every 10 s, converted to notes by their first advance
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    const often = interval(10);
    for (const id of ['paused', 'removed', 'updated', 'kept']) await runtime.add(id, often);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE);
    expect(await runtime.store.getSchedule('paused')).toMatchObject({ onNotes: true, version: 1 });

    // Act: the admin API's changes between two ticks (each bumps the version; an update indexes the item again)
    const changedAt = runtime.clock.now() - 30 * SECOND;
    runtime.clock.set(changedAt);
    const admin = createAdminHandler(() => runtime.deps, testTasks({ echo: { handler: () => undefined } }));
    for (const request of [
      { action: 'pause_schedule', id: 'paused' },
      { action: 'remove_schedule', id: 'removed' },
      { action: 'update_schedule', id: 'updated', payload: { n: 2 } },
    ]) {
      const answer = await admin(request, { awsRequestId: request.action });
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
    }
    runtime.clock.set(changedAt + 30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 20 * MINUTE);

    // Assess: their old notes were read and skipped; the update's fires go out under its new version
    const sentAfter = (id: string) => runtime.sentOf(id).filter((s) => s.at > changedAt);
    expect(sentAfter('paused')).toEqual([]);
    expect(sentAfter('removed')).toEqual([]);
    expect(sentAfter('updated').length).toBeGreaterThan(0);
    expect(sentAfter('updated').every((s) => s.message.revision?.version === 2)).toBe(true);
    expectEveryFireOnce(runtime.sentOf('updated'), often, T0 + 20 * MINUTE);
    expectEveryFireOnce(runtime.sentOf('kept'), often, T0 + 20 * MINUTE);
    expect(await runtime.store.getSchedule('updated')).toMatchObject({ version: 2, onNotes: true });
    // The old version's chain ended at its first note read after the change: none noted beyond it
    const oldChain = (await runtime.allNotes(T0 + 30 * MINUTE)).filter(
      (note) => note.entry.scheduleId !== 'kept' && note.entry.version === 1,
    );
    expect(Math.max(...oldChain.map((note) => note.entry.nextFireAt))).toBeLessThan(changedAt + 5 * MINUTE);
    const stale = runtime.summaries.reduce((sum, s) => sum + (s.notes?.staleNotes ?? 0), 0);
    expect(stale).toBeGreaterThanOrEqual(3);
    expect(runtime.summaries.every((s) => s.errors === 0)).toBe(true);
  });

  it('finishes a schedule on notes whose trigger ends, as the index path does, and publishes schedule.finished', async () => {
    // Prepare: every 10 s from T0 to T0 + 10 min
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    const ending = interval(10, T0 + 10 * MINUTE);
    await runtime.add('ending', ending);

    // Act
    await runtime.tickEveryMinuteUntil(T0 + 20 * MINUTE);

    // Assess: every fire once, the last marked final; the item finished with its runs and last fire
    const fires = fireTimes(ending, T0, T0 + 20 * MINUTE);
    expectEveryFireOnce(runtime.sentOf('ending'), ending, T0 + 20 * MINUTE);
    const last = runtime.sentOf('ending').at(-1)?.message;
    expect(last).toMatchObject({ finalFire: true, job: { fireTime: fires.at(-1) } });
    const schedule = await runtime.store.getSchedule('ending');
    expect(schedule).toMatchObject({
      nextFireAt: null,
      runs: fires.length,
      lastFireAt: fires.at(-1),
      paused: false,
    });
    expect(schedule?.onNotes).toBeUndefined();
    const finished = runtime.publisher.events.filter((event) => event.type === 'schedule.finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ scheduleId: 'ending' });
    expect(runtime.summaries.reduce((sum, s) => sum + s.schedulesFinished, 0)).toBe(1);
  });
});
