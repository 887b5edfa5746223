import { beforeEach, expect, it } from 'vitest';
import type { AdvanceScheduleInput } from '../../lib/core/ports/schedule-store';
import { definition, MINUTE, range, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

const READ = { now: T0, dueBefore: T0 + 90 * SECOND, limit: 100 };

/** The lease-less tick's read and conditional advance (ADR 0005). */
export function scheduleAdvanceContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const add = (id: string, nextFireAt: number | null, paused = false) =>
    store.addSchedule({
      schedule: definition(id, { paused }),
      nextFireAt,
      conflictPolicy: 'exception',
      now: T0,
    });
  const advance = (id: string, overrides: Partial<AdvanceScheduleInput> = {}) =>
    store.advanceSchedule({
      id,
      seenVersion: 1,
      seenCreatedAt: T0,
      seenNextFireAt: T0 + 10 * SECOND,
      nextFireAt: T0 + 95 * SECOND,
      lastFireAt: T0 + 90 * SECOND,
      firesDispatched: 2,
      now: T0,
      ...overrides,
    });

  it('reads due schedules with all their fields, up to the limit, leaving out leased, paused, later, finished and skipped ones, and writes nothing', async () => {
    for (const n of range(4)) await add(`due-${n}`, T0 + n * SECOND);
    await add('leased', T0);
    await add('skipped', T0);
    await add('paused', T0, true);
    await add('later', T0 + 10 * MINUTE);
    await add('finished', null);
    await store.leaseSchedule('leased', 'other-tick', T0, MINUTE);

    const read = await store.readDueSchedules({ ...READ, skip: new Set(['skipped']) });
    const limited = await store.readDueSchedules({ ...READ, limit: 2, skip: new Set(['skipped']) });
    const again = await store.readDueSchedules(READ);

    expect(read.map((s) => s.id).sort()).toEqual(['due-0', 'due-1', 'due-2', 'due-3']);
    expect(read.find((s) => s.id === 'due-2')).toMatchObject({
      ...definition('due-2'),
      nextFireAt: T0 + 2 * SECOND,
      version: 1,
      leaseOwner: null,
      leaseUntil: null,
    });
    expect(limited).toHaveLength(2);
    expect(again.map((s) => s.id).sort()).toEqual(['due-0', 'due-1', 'due-2', 'due-3', 'skipped']);
  });

  it('advances a schedule read as due, which then leaves the due window, and a finished one leaves the index', async () => {
    await add('s', T0 + 10 * SECOND);
    await add('done', T0 + 10 * SECOND);

    const outcomes = [await advance('s'), await advance('done', { nextFireAt: null })];

    expect(outcomes).toEqual(['advanced', 'advanced']);
    expect(await store.getSchedule('s')).toMatchObject({
      nextFireAt: T0 + 95 * SECOND,
      lastFireAt: T0 + 90 * SECOND,
      runs: 2,
      version: 1,
      leaseOwner: null,
    });
    expect(await store.getSchedule('done')).toMatchObject({ nextFireAt: null, lastFireAt: T0 + 90 * SECOND });
    expect(await store.readDueSchedules(READ)).toEqual([]);
    const muchLater = await store.readDueSchedules({ ...READ, dueBefore: T0 + 10 * MINUTE });
    expect(muchLater.map((schedule) => schedule.id)).toEqual(['s']);
  });

  it('lets exactly one of eight racing advances of the same read state win, and counts its fires once', async () => {
    await add('s', T0 + 10 * SECOND);

    const outcomes = await Promise.all(
      range(8).map((n) =>
        advance('s', { nextFireAt: T0 + (91 + n) * SECOND, lastFireAt: T0 + (90 + n) * SECOND }),
      ),
    );

    const winner = outcomes.indexOf('advanced');
    expect(outcomes.filter((outcome) => outcome === 'advanced')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'lost')).toHaveLength(7);
    expect(await store.getSchedule('s')).toMatchObject({
      nextFireAt: T0 + (91 + winner) * SECOND,
      lastFireAt: T0 + (90 + winner) * SECOND,
      runs: 2,
    });
  });

  it('recognises a retry of an advance that had applied, without counting its fires again', async () => {
    await add('s', T0 + 10 * SECOND);

    const first = await advance('s');
    const retried = await advance('s');

    expect([first, retried]).toEqual(['advanced', 'advanced']);
    expect(await store.getSchedule('s')).toMatchObject({ nextFireAt: T0 + 95 * SECOND, runs: 2, version: 1 });
  });

  it('refuses an advance planned from a schedule removed since, when another is added under its id at the same version and next fire', async () => {
    await add('s', T0 + 10 * SECOND);
    await store.removeSchedule('s');
    await store.addSchedule({
      schedule: definition('s', { payload: 'the new one' }),
      nextFireAt: T0 + 10 * SECOND,
      conflictPolicy: 'exception',
      now: T0 + 1,
    });

    const outcome = await advance('s');

    expect(outcome).toBe('gone');
    expect(await store.getSchedule('s')).toMatchObject({
      payload: 'the new one',
      version: 1,
      nextFireAt: T0 + 10 * SECOND,
      lastFireAt: null,
      runs: 0,
    });
  });

  it('refuses an advance after the schedule changed, was paused, removed, or leased, and writes nothing', async () => {
    for (const id of ['updated', 'paused', 'removed', 'leased']) await add(id, T0 + 10 * SECOND);
    await store.updateSchedule('updated', { payload: 'new' }, T0 + 5 * MINUTE, T0 + 1);
    await store.pauseSchedule('paused', T0 + 1);
    await store.removeSchedule('removed');
    await store.leaseSchedule('leased', 'other-tick', T0, MINUTE);

    const outcomes = await Promise.all(['updated', 'paused', 'removed', 'leased'].map((id) => advance(id)));
    const afterLeaseExpired = await advance('leased', { now: T0 + MINUTE + 1 });

    expect(outcomes).toEqual(['superseded', 'superseded', 'gone', 'lost']);
    expect(afterLeaseExpired).toBe('advanced');
    expect(await store.getSchedule('updated')).toMatchObject({
      nextFireAt: T0 + 5 * MINUTE,
      lastFireAt: null,
      payload: 'new',
      version: 2,
    });
    expect(await store.getSchedule('paused')).toMatchObject({ paused: true, lastFireAt: null, version: 2 });
  });
}
