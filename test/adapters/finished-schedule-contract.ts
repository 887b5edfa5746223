import { beforeEach, expect, it } from 'vitest';
import type { ScheduleDefinition } from '../../lib/core/model/schedule';
import { removalRecordExpiresAt } from '../../lib/core/ports/finished-schedule-removal';
import { addActive, MINUTE, SECOND, type Store, type StoreFixture, startingAt, T0 } from './store-fixtures';

/** `max_runs`, `keep_finished` and the conditional removal of a finished schedule (ADR 0004). */
export function finishedScheduleContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  it('stores keepFinished and maxRuns, and update changes or clears them', async () => {
    await addActive(store, 's', { schedule: { keepFinished: true, maxRuns: 5 } });
    expect(await store.getSchedule('s')).toMatchObject({ keepFinished: true, maxRuns: 5, runs: 0 });

    await store.updateSchedule({
      id: 's',
      changes: { keepFinished: false, maxRuns: null },
      now: T0 + 1,
      expectedVersion: 1,
    });

    expect(await store.getSchedule('s')).toMatchObject({ keepFinished: false, maxRuns: null, runs: 0 });
  });

  /** Adds `id` and ends its chain: finished at `LAST` after 2 runs, version 1. */
  async function finished(id: string, overrides: Partial<ScheduleDefinition> = {}) {
    await addActive(store, id, { schedule: overrides });
    const outcome = await store.finishSchedule({ id, chain: 'c1', lastFireAt: LAST, runs: 2 });
    if (outcome !== 'finished') throw new Error(`${id} was not finished`);
  }
  const LAST = T0 + 10 * SECOND;
  const REMOVED_AT = T0 + MINUTE;

  it('removes a finished schedule once, and answers it as it was', async () => {
    await finished('done');

    expect(await store.removeFinishedSchedule('done', LAST, 1, REMOVED_AT)).toMatchObject({
      id: 'done',
      runs: 2,
      lastFireAt: LAST,
      nextFireAt: null,
    });
    expect(await store.getSchedule('done')).toBeUndefined();
    expect(await store.removeFinishedSchedule('done', LAST, 1, REMOVED_AT)).toBeUndefined();
  });

  it('keeps a schedule that is kept, active, paused, or changed since (another version or last fire)', async () => {
    await finished('kept', { keepFinished: true });
    await addActive(store, 'active');
    await finished('paused');
    await store.pauseSchedule({ id: 'paused', now: T0 + 1, position: startingAt(null), seenVersion: 1 });
    await finished('updated');
    await store.updateSchedule({
      id: 'updated',
      changes: { payload: 'new' },
      now: T0 + 1,
      expectedVersion: 1,
    });

    expect(await store.removeFinishedSchedule('kept', LAST, 1, REMOVED_AT)).toBeUndefined();
    expect(await store.removeFinishedSchedule('active', null, 1, REMOVED_AT)).toBeUndefined();
    expect(await store.removeFinishedSchedule('paused', LAST, 2, REMOVED_AT)).toBeUndefined();
    expect(await store.removeFinishedSchedule('updated', LAST, 1, REMOVED_AT)).toBeUndefined();
    expect(await store.removeFinishedSchedule('updated', LAST - 1, 2, REMOVED_AT)).toBeUndefined();
    expect(await store.removeFinishedSchedule('missing', LAST, 1, REMOVED_AT)).toBeUndefined();
    for (const id of ['kept', 'active', 'paused', 'updated'])
      expect(await store.getSchedule(id)).toBeDefined();

    expect(await store.removeFinishedSchedule('updated', LAST, 2, REMOVED_AT)).toMatchObject({
      id: 'updated',
      version: 2,
    });
  });

  it('removes a finished schedule whose keepFinished was turned off', async () => {
    await finished('let-go', { keepFinished: true });
    await store.updateSchedule({
      id: 'let-go',
      changes: { keepFinished: false },
      now: T0 + 1,
      expectedVersion: 1,
    });

    expect(await store.removeFinishedSchedule('let-go', LAST, 2, REMOVED_AT)).toMatchObject({
      keepFinished: false,
    });
    expect(await store.getSchedule('let-go')).toBeUndefined();
  });

  it('leaves a removal record holding a changed schedule as removed, which is never a schedule', async () => {
    await finished('done', { tags: ['nightly'], description: 'report' });
    await store.updateSchedule({
      id: 'done',
      changes: { payload: { size: 'large' } },
      now: T0 + 1,
      expectedVersion: 1,
    });
    const removed = await store.removeFinishedSchedule('done', LAST, 2, REMOVED_AT);

    expect(await store.getFinishedScheduleRemoval('done')).toEqual({
      scheduleId: 'done',
      revision: { createdAt: T0, version: 2 },
      lastFireAt: LAST,
      schedule: removed,
      expiresAt: removalRecordExpiresAt(REMOVED_AT),
    });
    expect(removed).toMatchObject({
      id: 'done',
      payload: { size: 'large' },
      tags: ['nightly'],
      description: 'report',
      nextFireAt: null,
      lastFireAt: LAST,
      runs: 2,
      version: 2,
    });
    expect(removalRecordExpiresAt(REMOVED_AT)).toBeGreaterThan(REMOVED_AT + 14 * 24 * 60 * MINUTE);
    expect(await store.getSchedule('done')).toBeUndefined();
    expect((await store.listSchedules({}, { limit: 100 })).items).toEqual([]);
  });

  it('keeps only the revision of a schedule never changed: all its fires were sent under it', async () => {
    await finished('unchanged');
    await store.removeFinishedSchedule('unchanged', LAST, 1, REMOVED_AT);

    expect(await store.getFinishedScheduleRemoval('unchanged')).toEqual({
      scheduleId: 'unchanged',
      revision: { createdAt: T0, version: 1 },
      lastFireAt: LAST,
      expiresAt: removalRecordExpiresAt(REMOVED_AT),
    });
  });

  it('leaves no record when nothing is removed, nor for an owner removal', async () => {
    await finished('kept', { keepFinished: true });
    await finished('owned');

    await store.removeFinishedSchedule('kept', LAST, 1, REMOVED_AT);
    await store.removeSchedule('owned');

    expect(await store.getFinishedScheduleRemoval('kept')).toBeUndefined();
    expect(await store.getFinishedScheduleRemoval('owned')).toBeUndefined();
    expect(await store.getFinishedScheduleRemoval('missing')).toBeUndefined();
  });

  it('keeps the record beside a schedule added again with the same id, out of its listings', async () => {
    await finished('again');
    await store.removeFinishedSchedule('again', LAST, 1, REMOVED_AT);
    await addActive(store, 'again', { nextFireAt: T0 + 2 * MINUTE, now: REMOVED_AT, chain: 'c2' });

    expect(await store.getSchedule('again')).toMatchObject({ createdAt: REMOVED_AT, version: 1 });
    expect((await store.listSchedules({}, { limit: 100 })).items.map((schedule) => schedule.id)).toEqual([
      'again',
    ]);
    expect(await store.getFinishedScheduleRemoval('again')).toMatchObject({
      revision: { createdAt: T0, version: 1 },
    });
  });

  it('drops the record when the owner removes the schedule of that id', async () => {
    await finished('again');
    await store.removeFinishedSchedule('again', LAST, 1, REMOVED_AT);
    await addActive(store, 'again', { nextFireAt: T0 + 2 * MINUTE, now: REMOVED_AT, chain: 'c2' });

    expect(await store.removeSchedule('again')).toBe(true);
    expect(await store.getFinishedScheduleRemoval('again')).toBeUndefined();
    expect(await store.removeSchedule('again')).toBe(false);
  });
}
