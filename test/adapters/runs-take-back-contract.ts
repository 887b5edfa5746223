import { beforeEach, expect, it } from 'vitest';
import { ScheduleMovedError } from '../../lib/core/errors';
import type { FiresTakenBack } from '../../lib/core/ports/schedule-store';
import { definition, failure, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/**
 * A change that cancels the fires sent ahead takes them back out of `runs` in its own write (ADR 0004),
 * only while the schedule is as read: a dispatch in between (a moved last fire time) or another change
 * refuses it, and nothing is written.
 */
export function runsTakeBackContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  /** A schedule that dispatched 5 fires, the last at T0 + 50 s. */
  async function afterFiveFires() {
    await store.addSchedule({
      schedule: definition('s', { maxRuns: 10 }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0 - SECOND,
    });
    await advance(T0, T0 + 60 * SECOND, T0 + 50 * SECOND, 5);
    const read = await store.getSchedule('s');
    if (!read) throw new Error('not added');
    return read;
  }

  async function advance(seenNext: number, next: number, last: number, fires: number) {
    const read = await store.getSchedule('s');
    if (!read) throw new Error('gone');
    await store.advanceSchedule({
      id: 's',
      seenVersion: read.version,
      seenCreatedAt: read.createdAt,
      seenNextFireAt: seenNext,
      nextFireAt: next,
      lastFireAt: last,
      firesDispatched: fires,
      now: T0 - SECOND,
    });
  }

  const takeBackOf = (read: { version: number; lastFireAt: number | null }): FiresTakenBack => ({
    seenVersion: read.version,
    seenLastFireAt: read.lastFireAt,
    count: 4,
    lastFireAt: T0 + 10 * SECOND,
  });

  it('a pause takes the fires back in its write, and a repeat of it changes nothing', async () => {
    const read = await afterFiveFires();

    const paused = await store.pauseSchedule('s', T0 + 12 * SECOND, takeBackOf(read));
    const again = await store.pauseSchedule('s', T0 + 12 * SECOND, takeBackOf(read));

    expect(paused).toMatchObject({ paused: true, runs: 1, lastFireAt: T0 + 10 * SECOND });
    expect(again).toMatchObject({ paused: true, runs: 1, lastFireAt: T0 + 10 * SECOND });
  });

  it('refuses a pause, an update and a replace whose schedule was dispatched further since it was read', async () => {
    const read = await afterFiveFires();
    await advance(T0 + 60 * SECOND, T0 + 70 * SECOND, T0 + 60 * SECOND, 1);
    const takeBack = takeBackOf(read);

    const pause = await failure(store.pauseSchedule('s', T0 + 12 * SECOND, takeBack));
    const update = await failure(
      store.updateSchedule(
        's',
        { trigger: read.trigger },
        T0 + 20 * SECOND,
        T0 + 12 * SECOND,
        read.version,
        takeBack,
      ),
    );
    const replace = await failure(
      store.addSchedule({
        schedule: definition('s', { maxRuns: 10 }),
        nextFireAt: T0 + 20 * SECOND,
        conflictPolicy: 'replace',
        now: T0 + 12 * SECOND,
        takeBack,
      }),
    );

    for (const error of [pause, update, replace]) expect(error).toBeInstanceOf(ScheduleMovedError);
    expect(await store.getSchedule('s')).toMatchObject({
      paused: false,
      runs: 6,
      lastFireAt: T0 + 60 * SECOND,
      version: read.version,
    });
  });

  it('an update and a replace take the fires back in their write', async () => {
    const read = await afterFiveFires();

    const updated = await store.updateSchedule(
      's',
      { trigger: read.trigger },
      T0 + 20 * SECOND,
      T0 + 12 * SECOND,
      read.version,
      takeBackOf(read),
    );
    const replaced = await store.addSchedule({
      schedule: definition('s', { maxRuns: 10 }),
      nextFireAt: T0 + 20 * SECOND,
      conflictPolicy: 'replace',
      now: T0 + 13 * SECOND,
      takeBack: { ...takeBackOf(updated), count: 1, lastFireAt: null },
    });

    expect(updated).toMatchObject({ runs: 1, lastFireAt: T0 + 10 * SECOND, version: read.version + 1 });
    expect(replaced).toMatchObject({ status: 'replaced', schedule: { runs: 0, lastFireAt: null } });
  });

  it('a replace counts in its write the fires an unreleased dispatch sent (a negative count)', async () => {
    const read = await afterFiveFires();

    const replaced = await store.addSchedule({
      schedule: definition('s', { maxRuns: 10 }),
      nextFireAt: T0 + 80 * SECOND,
      conflictPolicy: 'replace',
      now: T0 + 75 * SECOND,
      takeBack: { ...takeBackOf(read), count: -2, lastFireAt: T0 + 70 * SECOND },
    });

    expect(replaced).toMatchObject({
      status: 'replaced',
      schedule: { runs: 7, lastFireAt: T0 + 70 * SECOND, nextFireAt: T0 + 80 * SECOND },
    });
  });

  it('gives runs back only to the schedule added at the time given', async () => {
    const read = await afterFiveFires();

    await store.giveBackRuns('s', 2, read.createdAt);
    await store.giveBackRuns('s', 3, read.createdAt + 1);

    expect(await store.getSchedule('s')).toMatchObject({ runs: 7 });
  });
}
