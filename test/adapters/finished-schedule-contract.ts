import { beforeEach, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/core/errors';
import { removalRecordExpiresAt } from '../../lib/core/ports/finished-schedule-removal';
import {
  definition,
  failure,
  LEASED_AS_ADDED_AT_T0,
  leasedState,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  T0,
} from './store-fixtures';

const TICK = { now: T0, dueBefore: T0 + 90 * SECOND, leaseMs: MINUTE, limit: 100 };

/** `runs`, `max_runs`, `keep_finished` and the conditional removal of a finished schedule (ADR 0004). */
export function finishedScheduleContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  /** Leases `id` as `owner` and releases it with `fires` fire times dispatched, the last at `lastFireAt`. */
  async function dispatch(id: string, owner: string, fires: number, lastFireAt: number, next: number | null) {
    const [leased] = await store.acquireDueSchedules({ ...TICK, owner });
    if (!leased) throw new Error(`${id} was not leased`);
    return store.releaseSchedule({
      id,
      owner,
      leasedVersion: leased.version,
      leased: leasedState(leased),
      nextFireAt: next,
      lastFireAt,
      firesDispatched: fires,
      now: T0,
    });
  }

  it('stores keepFinished and maxRuns, and update changes or clears them', async () => {
    await store.addSchedule({
      schedule: definition('s', { keepFinished: true, maxRuns: 5 }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    expect(await store.getSchedule('s')).toMatchObject({ keepFinished: true, maxRuns: 5, runs: 0 });

    await store.updateSchedule('s', { keepFinished: false, maxRuns: null }, T0, T0 + 1);

    expect(await store.getSchedule('s')).toMatchObject({ keepFinished: false, maxRuns: null, runs: 0 });
  });

  it('adds the fires of a release to runs, and a release that lost its lease counts none', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    expect(await dispatch('s', 'tick-1', 3, T0 + 10 * SECOND, T0 + 15 * SECOND)).toBe('released');
    expect((await store.getSchedule('s'))?.runs).toBe(3);

    // A slow tick's lease expires and another takes it over: only the holder's release counts.
    await store.acquireDueSchedules({ ...TICK, owner: 'slow', leaseMs: SECOND });
    await store.acquireDueSchedules({ ...TICK, owner: 'fast', now: T0 + 2 * SECOND });
    const late = store.releaseSchedule({
      id: 's',
      owner: 'slow',
      leasedVersion: 1,
      leased: LEASED_AS_ADDED_AT_T0,
      nextFireAt: T0 + MINUTE,
      lastFireAt: T0 + 45 * SECOND,
      firesDispatched: 7,
      now: T0 + 3 * SECOND,
    });
    expect(await failure(late)).toBeInstanceOf(LeaseLostError);
    expect((await store.getSchedule('s'))?.runs).toBe(3);
  });

  it('counts each fire once when ticks race for the same schedules', async () => {
    for (const n of range(10)) {
      await store.addSchedule({
        schedule: definition(`s-${n}`),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: T0,
      });
    }
    const tick = async (owner: string) => {
      const leased = await store.acquireDueSchedules({ ...TICK, owner });
      await Promise.all(
        leased.map((schedule) =>
          store.releaseSchedule({
            id: schedule.id,
            owner,
            leasedVersion: schedule.version,
            leased: leasedState(schedule),
            nextFireAt: T0 + 10 * MINUTE,
            lastFireAt: T0 + 85 * SECOND,
            firesDispatched: 18,
            now: T0,
          }),
        ),
      );
    };

    await Promise.all(range(4).map((n) => tick(`tick-${n}`)));

    for (const n of range(10)) expect((await store.getSchedule(`s-${n}`))?.runs).toBe(18);
  });

  /** Adds `id` and dispatches its last fires: finished at `lastFireAt` after 2 runs, version 1. */
  async function finished(id: string, overrides: Parameters<typeof definition>[1] = {}) {
    await store.addSchedule({
      schedule: definition(id, overrides),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    const leased = await store.leaseSchedule(id, `tick-${id}`, T0, MINUTE);
    if (!leased) throw new Error(`${id} was not leased`);
    await store.releaseSchedule({
      id,
      owner: `tick-${id}`,
      leasedVersion: 1,
      leased: leasedState(leased),
      nextFireAt: null,
      lastFireAt: LAST,
      firesDispatched: 2,
      now: T0,
    });
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
    await store.addSchedule({
      schedule: definition('active'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    await finished('paused');
    await store.pauseSchedule('paused', T0 + 1);
    await finished('updated');
    await store.updateSchedule('updated', { payload: 'new' }, null, T0 + 1);

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
    await store.updateSchedule('let-go', { keepFinished: false }, null, T0 + 1);

    expect(await store.removeFinishedSchedule('let-go', LAST, 2, REMOVED_AT)).toMatchObject({
      keepFinished: false,
    });
    expect(await store.getSchedule('let-go')).toBeUndefined();
  });

  it('leaves a removal record holding a changed schedule as removed, which is never a schedule', async () => {
    await finished('done', { tags: ['nightly'], description: 'report' });
    await store.updateSchedule('done', { payload: { size: 'large' } }, null, T0 + 1);
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
    await store.addSchedule({
      schedule: definition('again'),
      nextFireAt: T0 + 2 * MINUTE,
      conflictPolicy: 'exception',
      now: REMOVED_AT,
    });

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
    await store.addSchedule({
      schedule: definition('again'),
      nextFireAt: T0 + 2 * MINUTE,
      conflictPolicy: 'exception',
      now: REMOVED_AT,
    });

    expect(await store.removeSchedule('again')).toBe(true);
    expect(await store.getFinishedScheduleRemoval('again')).toBeUndefined();
    expect(await store.removeSchedule('again')).toBe(false);
  });
}
