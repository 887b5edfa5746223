import { beforeEach, expect, it } from 'vitest';
import { ConflictingIdError, ScheduleNotFoundError, VersionConflictError } from '../../lib/core/errors';
import {
  definition,
  failure,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  T0,
} from './store-fixtures';

const TICK = { now: T0, dueBefore: T0 + 90 * SECOND, leaseMs: MINUTE, limit: 100 };

export function scheduleContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  it('adds a schedule at version 1 and returns it unchanged when read', async () => {
    const added = await store.addSchedule({
      schedule: definition('nightly'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const read = await store.getSchedule('nightly');

    expect(added.status).toBe('added');
    expect(read).toEqual({
      ...definition('nightly'),
      nextFireAt: T0,
      lastFireAt: null,
      runs: 0,
      firesFrom: T0,
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      leaseOwner: null,
      leaseUntil: null,
    });
    expect(await store.getSchedule('missing')).toBeUndefined();
  });

  it('applies the conflict policy when the id exists', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const duplicate = await failure(
      store.addSchedule({
        schedule: definition('s'),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: T0 + 1,
      }),
    );
    const kept = await store.addSchedule({
      schedule: definition('s', { task: 'other' }),
      nextFireAt: T0,
      conflictPolicy: 'do_nothing',
      now: T0 + 2,
    });
    const replaced = await store.addSchedule({
      schedule: definition('s', { task: 'other', misfireGraceSeconds: null }),
      nextFireAt: T0 + MINUTE,
      conflictPolicy: 'replace',
      now: T0 + 3,
    });

    expect(duplicate).toBeInstanceOf(ConflictingIdError);
    expect(kept).toMatchObject({ status: 'kept', schedule: { task: 'send-report', version: 1 } });
    expect(replaced).toMatchObject({
      status: 'replaced',
      schedule: {
        task: 'other',
        misfireGraceSeconds: null,
        version: 2,
        createdAt: T0,
        updatedAt: T0 + 3,
        nextFireAt: T0 + MINUTE,
      },
    });
  });

  it('updates with an expected version and rejects a stale one or an unknown id', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const updated = await store.updateSchedule(
      's',
      { payload: { v: 2 }, tags: ['a', 'b'] },
      T0 + MINUTE,
      T0 + 5,
      1,
    );
    const stale = await failure(store.updateSchedule('s', { payload: { v: 3 } }, T0, T0 + 6, 1));
    const unknown = await failure(store.updateSchedule('nope', { payload: 1 }, T0, T0 + 6));

    expect(updated).toMatchObject({
      payload: { v: 2 },
      tags: ['a', 'b'],
      version: 2,
      nextFireAt: T0 + MINUTE,
      task: 'send-report',
    });
    expect(stale).toBeInstanceOf(VersionConflictError);
    expect(unknown).toBeInstanceOf(ScheduleNotFoundError);
  });

  it('keeps a payload updated to null as null: a payload is any JSON', async () => {
    await store.addSchedule({
      schedule: definition('p'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const updated = await store.updateSchedule('p', { payload: null }, T0 + MINUTE, T0 + 1);

    expect(updated).toHaveProperty('payload', null);
    expect(await store.getSchedule('p')).toHaveProperty('payload', null);
  });

  it('takes a paused schedule out of the due index and puts it back on resume', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const paused = await store.pauseSchedule('s', T0);
    const pausedAgain = await store.pauseSchedule('s', T0 + 1);
    const whilePaused = await store.acquireDueSchedules({ ...TICK, owner: 'tick-1' });
    const updatedWhilePaused = await store.updateSchedule('s', { payload: 'x' }, T0 + SECOND, T0 + 2);
    const stillPaused = await store.acquireDueSchedules({ ...TICK, owner: 'tick-2' });
    const resumed = await store.resumeSchedule('s', T0 + 2 * SECOND, T0 + 3);
    const afterResume = await store.acquireDueSchedules({ ...TICK, owner: 'tick-3' });

    expect(paused).toMatchObject({ paused: true, version: 2 });
    expect(pausedAgain.version).toBe(2);
    expect(whilePaused).toEqual([]);
    expect(updatedWhilePaused).toMatchObject({ paused: true, nextFireAt: T0 + SECOND });
    expect(stillPaused).toEqual([]);
    expect(resumed).toMatchObject({ paused: false, version: 4, nextFireAt: T0 + 2 * SECOND });
    expect(afterResume.map((s) => s.id)).toEqual(['s']);
  });

  it('moves firesFrom to where the current definition starts: a new trigger, a pause, a resume', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const samePlan = await store.updateSchedule('s', { payload: { v: 2 } }, T0, T0 + 1);
    const newTrigger = await store.updateSchedule(
      's',
      { trigger: { type: 'interval', seconds: 5, start_at: new Date(T0).toISOString() } },
      T0 + 5 * SECOND,
      T0 + 2,
    );
    const paused = await store.pauseSchedule('s', T0 + 3);
    const pausedAgain = await store.pauseSchedule('s', T0 + 4);
    const resumed = await store.resumeSchedule('s', T0 + 10 * SECOND, T0 + 5, T0 + 3);
    const replaced = await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0 + MINUTE,
      conflictPolicy: 'replace',
      now: T0 + 6,
    });

    expect(samePlan.firesFrom).toBe(T0);
    expect(newTrigger.firesFrom).toBe(T0 + 2);
    expect(paused.firesFrom).toBe(T0 + 3);
    expect(pausedAgain.firesFrom).toBe(T0 + 3);
    expect(resumed).toMatchObject({ paused: false, firesFrom: T0 + 3, nextFireAt: T0 + 10 * SECOND });
    expect(replaced.schedule.firesFrom).toBe(T0 + 6);
    expect((await store.getSchedule('s'))?.firesFrom).toBe(T0 + 6);
  });

  it('lists schedules in id order with filters, each exactly once across pages', async () => {
    for (const n of range(37)) {
      const id = `s-${String(n).padStart(2, '0')}`;
      const schedule = definition(id, {
        task: n % 2 ? 'odd' : 'even',
        tags: n % 3 ? ['x'] : ['x', 'third'],
        paused: n % 5 === 0,
      });
      await store.addSchedule({ schedule, nextFireAt: T0 + n, conflictPolicy: 'exception', now: T0 });
    }
    const collect = async (filter: Parameters<Store['listSchedules']>[0]) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listSchedules(filter, { limit: 4, cursor });
        expect(page.items.length).toBeLessThanOrEqual(4);
        ids.push(...page.items.map((s) => s.id));
        cursor = page.cursor;
      } while (cursor);
      return ids;
    };
    const expected = (keep: (n: number) => boolean) =>
      range(37)
        .filter(keep)
        .map((n) => `s-${String(n).padStart(2, '0')}`);

    expect(await collect({})).toEqual(expected(() => true));
    expect(await collect({ task: 'odd' })).toEqual(expected((n) => n % 2 === 1));
    expect(await collect({ tag: 'third', paused: false })).toEqual(
      expected((n) => n % 3 === 0 && n % 5 !== 0),
    );
    expect(await collect({ task: 'none' })).toEqual([]);
  });
}
