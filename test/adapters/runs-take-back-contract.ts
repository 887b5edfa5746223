import { beforeEach, expect, it } from 'vitest';
import { definition, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/**
 * `takeBackFires`: a change that cancelled fires sent ahead takes them back out of `runs`, once per
 * change, with a relative write (a dispatch between the change and the take-back keeps its count).
 */
export function runsTakeBackContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  /** A schedule that dispatched 5 fires, the last at T0 + 50 s, then was paused at T0 + 12 s. */
  async function pausedAfterFiveFires() {
    const schedule = definition('s', { maxRuns: 10 });
    await store.addSchedule({ schedule, nextFireAt: T0, conflictPolicy: 'exception', now: T0 - SECOND });
    const added = await store.getSchedule('s');
    if (!added) throw new Error('not added');
    await store.advanceSchedule({
      id: 's',
      seenVersion: added.version,
      seenCreatedAt: added.createdAt,
      seenNextFireAt: T0,
      nextFireAt: T0 + 60 * SECOND,
      lastFireAt: T0 + 50 * SECOND,
      firesDispatched: 5,
      now: T0 - SECOND,
    });
    return store.pauseSchedule('s', T0 + 12 * SECOND);
  }

  it('takes the fires back and moves the last fire time back, once per change', async () => {
    const paused = await pausedAfterFiveFires();
    const input = { id: 's', changed: paused, count: 4, lastCounted: T0 + 10 * SECOND };

    const first = await store.takeBackFires(input);
    const again = await store.takeBackFires(input);

    expect(first).toMatchObject({ runs: 1, lastFireAt: T0 + 10 * SECOND, version: paused.version });
    expect(again).toMatchObject({ runs: 1, lastFireAt: T0 + 10 * SECOND });
    expect(await store.getSchedule('s')).toMatchObject({ runs: 1, lastFireAt: T0 + 10 * SECOND });
  });

  it('still takes them back after a later change, and that change may take back its own', async () => {
    const paused = await pausedAfterFiveFires();
    const resumed = await store.resumeSchedule('s', T0 + 20 * SECOND, T0 + 13 * SECOND);

    const late = await store.takeBackFires({
      id: 's',
      changed: paused,
      count: 3,
      lastCounted: T0 + 20 * SECOND,
    });
    const own = await store.takeBackFires({ id: 's', changed: resumed, count: 1, lastCounted: null });
    const stale = await store.takeBackFires({ id: 's', changed: paused, count: 3, lastCounted: null });

    expect(late).toMatchObject({ runs: 2, lastFireAt: T0 + 20 * SECOND });
    // The resume's own take-back found the last fire time moved (by the pause's): runs alone
    expect(own).toMatchObject({ runs: 1, lastFireAt: T0 + 20 * SECOND });
    expect(stale).toMatchObject({ runs: 1, lastFireAt: T0 + 20 * SECOND });
  });

  it('keeps a last fire time a dispatch moved since the change, and takes back runs alone', async () => {
    const paused = await pausedAfterFiveFires();
    const resumed = await store.resumeSchedule('s', T0 + 60 * SECOND, T0 + 13 * SECOND);
    await store.advanceSchedule({
      id: 's',
      seenVersion: resumed.version,
      seenCreatedAt: resumed.createdAt,
      seenNextFireAt: T0 + 60 * SECOND,
      nextFireAt: T0 + 80 * SECOND,
      lastFireAt: T0 + 70 * SECOND,
      firesDispatched: 2,
      now: T0 + 13 * SECOND,
    });

    const takenBack = await store.takeBackFires({
      id: 's',
      changed: resumed,
      count: 4,
      lastCounted: T0 + 10 * SECOND,
    });

    expect(takenBack).toMatchObject({ runs: 3, lastFireAt: T0 + 70 * SECOND, nextFireAt: T0 + 80 * SECOND });
    expect(paused.runs).toBe(5);
  });

  it('never takes runs below zero, and leaves a removed (or re-added) schedule alone', async () => {
    const paused = await pausedAfterFiveFires();

    const tooMany = await store.takeBackFires({ id: 's', changed: paused, count: 6, lastCounted: null });
    await store.removeSchedule('s');
    const gone = await store.takeBackFires({ id: 's', changed: paused, count: 1, lastCounted: null });
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    const readded = await store.takeBackFires({ id: 's', changed: paused, count: 1, lastCounted: null });

    expect(tooMany).toMatchObject({ runs: 5, lastFireAt: T0 + 50 * SECOND });
    expect(gone).toBeUndefined();
    expect(readded).toBeUndefined();
    expect(await store.getSchedule('s')).toMatchObject({ runs: 0, version: 1 });
  });
}
