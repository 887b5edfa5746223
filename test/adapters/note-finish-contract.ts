import { beforeEach, expect, it } from 'vitest';
import type { FinishScheduleOnNotesInput } from '../../lib/core/ports/due-notes';
import {
  conversionOf,
  DAY,
  definition,
  MINUTE,
  SECOND,
  type Store,
  type StoreFixture,
  T0,
} from './store-fixtures';

/**
 * What the tick's note reader needs of a schedule's item (ADR 0007, step 3): a converted item tells itself
 * from a finished one (`onNotes`), the finish of a note-indexed schedule whose trigger ended, and the
 * strongly consistent batch read it checks its notes against.
 */
export function noteFinishContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const add = (id: string, paused = false, now = T0) =>
    store.addSchedule({
      schedule: definition(id, { paused }),
      nextFireAt: T0 + 10 * SECOND,
      conflictPolicy: 'exception',
      now,
    });
  const finishOf = (id: string, overrides: Partial<FinishScheduleOnNotesInput> = {}) => ({
    id,
    seenVersion: 1,
    seenCreatedAt: T0,
    runs: 5,
    lastFireAt: T0 + 3 * MINUTE,
    ...overrides,
  });

  it('never removes a converted schedule as finished: its next fire is in its note', async () => {
    await add('s');
    await store.convertScheduleToNotes(conversionOf('s'));

    const removed = await store.removeFinishedSchedule('s', T0 + 90 * SECOND, 1, T0 + MINUTE);

    expect(removed).toBeUndefined();
    expect(await store.getSchedule('s')).toMatchObject({ onNotes: true });
    await store.finishScheduleOnNotes(finishOf('s'));
    expect(await store.removeFinishedSchedule('s', T0 + 3 * MINUTE, 1, T0 + 4 * MINUTE)).toMatchObject({
      id: 's',
    });
  });

  it('finishes a converted schedule: runs and last fire written, no longer on notes, as a finished item', async () => {
    await add('s');
    await store.convertScheduleToNotes(conversionOf('s'));

    const finished = await store.finishScheduleOnNotes(finishOf('s'));
    const retried = await store.finishScheduleOnNotes(finishOf('s'));

    expect([finished, retried]).toEqual([true, true]);
    const schedule = await store.getSchedule('s');
    expect(schedule).toMatchObject({ nextFireAt: null, runs: 5, lastFireAt: T0 + 3 * MINUTE, version: 1 });
    expect(schedule?.onNotes).toBeUndefined();
    expect(await store.readDueSchedules({ now: T0, dueBefore: T0 + DAY, limit: 10 })).toEqual([]);
  });

  it('finishes nothing still indexed, changed, added again, paused or removed since its note was read', async () => {
    for (const id of ['indexed', 'updated', 'again', 'paused', 'removed']) await add(id);
    for (const id of ['updated', 'again', 'paused', 'removed']) {
      await store.convertScheduleToNotes(conversionOf(id));
    }
    // As the admin API changes a schedule on notes: from its live note's state (here, its conversion's)
    const noted = { seenVersion: 1, nextFireAt: T0 + 10 * SECOND, runs: 5, lastFireAt: T0 + 3 * MINUTE };
    await store.updateSchedule('updated', { maxJitterSeconds: 1 }, T0 + 10 * SECOND, T0, 1, undefined, noted);
    await store.removeSchedule('again');
    await add('again', false, T0 + 1);
    await store.pauseSchedule('paused', T0, undefined, noted);
    await store.removeSchedule('removed');

    const outcomes = await Promise.all(
      ['indexed', 'updated', 'again', 'paused', 'removed'].map((id) =>
        store.finishScheduleOnNotes(finishOf(id)),
      ),
    );

    expect(outcomes).toEqual([false, false, false, false, false]);
    expect(await store.getSchedule('indexed')).toMatchObject({ nextFireAt: T0 + 10 * SECOND, runs: 0 });
    expect(await store.getSchedule('paused')).toMatchObject({ paused: true, runs: 5 });
    expect(await store.getSchedule('again')).toMatchObject({ nextFireAt: T0 + 10 * SECOND, runs: 0 });
    expect(await store.getSchedule('removed')).toBeUndefined();
  });

  it('reads schedules by id, strongly consistent, leaving out ids it does not hold', async () => {
    const ids = Array.from({ length: 130 }, (_, n) => `s-${n}`);
    for (const id of ids) await add(id);
    await store.convertScheduleToNotes(conversionOf('s-7'));

    const read = await store.readSchedules([...ids, 'missing', 's-7']);

    expect([...read.keys()].sort()).toEqual([...ids].sort());
    expect(read.get('s-7')).toEqual(await store.getSchedule('s-7'));
    expect(read.get('s-129')).toMatchObject({ id: 's-129', nextFireAt: T0 + 10 * SECOND, version: 1 });
    expect((await store.readSchedules([])).size).toBe(0);
  });
}
