import { beforeEach, expect, it } from 'vitest';
import { shardOf } from '../../lib/adapters/dynamodb/table-design';
import { ScheduleMovedError } from '../../lib/core/errors';
import type { DueNoteEntry } from '../../lib/core/model/due-note';
import { isFinished } from '../../lib/core/model/schedule';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../lib/core/planning/note-chunks';
import type { NotedState } from '../../lib/core/ports/schedule-store';
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
 * A schedule moved on by due notes (ADR 0007): its item is out of the due index but keeps `dueAt`, reads
 * with `onNotes`, is not finished, and every admin write makes it item-indexed again, carrying its live
 * note's fire times and count (`NotedState`) in the same conditional write.
 */
export function notedScheduleContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const FIRST = T0 + 10 * SECOND;
  /** What the live note holds once the tick moved the schedule on past its conversion. */
  const fromNote: NotedState = {
    seenVersion: 1,
    nextFireAt: T0 + 10 * MINUTE,
    runs: 7,
    lastFireAt: T0 + 9 * MINUTE,
  };
  const dueIds = async () =>
    (await store.readDueSchedules({ now: T0, dueBefore: T0 + DAY, limit: 100 })).map((s) => s.id).sort();
  /** Added (item-indexed at FIRST), then converted: runs 2, last fire T0 + 90 s, on notes. */
  const noted = async (id: string, overrides: Parameters<typeof definition>[1] = {}) => {
    await store.addSchedule({
      schedule: definition(id, overrides),
      nextFireAt: FIRST,
      conflictPolicy: 'exception',
      now: T0,
    });
    expect(await store.convertScheduleToNotes(conversionOf(id))).toBe(true);
  };

  it('reads a converted schedule as on notes, not finished, with the fire times of its conversion', async () => {
    await noted('s');
    await store.addSchedule({
      schedule: definition('indexed'),
      nextFireAt: FIRST,
      conflictPolicy: 'exception',
      now: T0,
    });

    const read = await store.getSchedule('s');
    const listed = await store.listSchedules({}, { limit: 10 });

    expect(read).toMatchObject({ onNotes: true, nextFireAt: FIRST, runs: 2, lastFireAt: T0 + 90 * SECOND });
    expect(read && isFinished(read)).toBe(false);
    expect(listed.items.map((s) => [s.id, s.onNotes ?? false])).toEqual([
      ['indexed', false],
      ['s', true],
    ]);
    expect(await dueIds()).toEqual(['indexed']);
    // Not a finished schedule to clean up, nor one a tick can lease or advance from a read before it.
    expect(await store.removeFinishedSchedule('s', T0 + 90 * SECOND, 1, T0)).toBeUndefined();
    expect(await store.leaseSchedule('s', 'a-tick', T0, MINUTE)).toBeUndefined();
    const advance = {
      id: 's',
      seenVersion: 1,
      seenCreatedAt: T0,
      seenNextFireAt: FIRST,
      nextFireAt: FIRST + 5 * SECOND,
      lastFireAt: FIRST,
      firesDispatched: 1,
      now: T0,
    };
    expect(await store.advanceSchedule(advance)).toBe('lost');
    expect(await store.getSchedule('s')).toMatchObject({ onNotes: true, runs: 2 });
  });

  it('makes an updated schedule item-indexed again from its live note, in one write', async () => {
    await noted('s');

    const updated = await store.updateSchedule(
      's',
      { maxJitterSeconds: 1 },
      fromNote.nextFireAt,
      T0 + MINUTE,
      1,
      undefined,
      fromNote,
    );

    const expected = {
      nextFireAt: fromNote.nextFireAt,
      runs: 7,
      lastFireAt: fromNote.lastFireAt,
      version: 2,
    };
    expect(updated).toMatchObject(expected);
    expect(updated.onNotes).toBeUndefined();
    expect(await store.getSchedule('s')).toMatchObject(expected);
    expect((await store.getSchedule('s'))?.onNotes).toBeUndefined();
    expect(await dueIds()).toEqual(['s']);
  });

  it('pauses from the live note, and resumes into the due index', async () => {
    await noted('s');

    const paused = await store.pauseSchedule('s', T0 + MINUTE, undefined, fromNote);
    const resumed = await store.resumeSchedule('s', T0 + 20 * MINUTE, T0 + 2 * MINUTE);

    expect(paused).toMatchObject({ paused: true, nextFireAt: fromNote.nextFireAt, runs: 7, version: 2 });
    expect(paused.onNotes).toBeUndefined();
    expect(resumed).toMatchObject({ paused: false, nextFireAt: T0 + 20 * MINUTE, runs: 7, version: 3 });
    expect(resumed.lastFireAt).toBe(fromNote.lastFireAt);
    expect(await dueIds()).toEqual(['s']);
  });

  it('replaces from the live note, a take-back subtracted from the note’s runs', async () => {
    await noted('s');
    const takeBack = {
      seenVersion: 1,
      seenLastFireAt: fromNote.lastFireAt,
      count: 3,
      lastFireAt: T0 + 6 * MINUTE,
    };

    const replaced = await store.addSchedule({
      schedule: definition('s', { maxRuns: 50 }),
      nextFireAt: T0 + 30 * MINUTE,
      conflictPolicy: 'replace',
      now: T0 + MINUTE,
      takeBack,
      noted: fromNote,
    });

    expect(replaced.status).toBe('replaced');
    expect(replaced.schedule).toMatchObject({
      runs: 4,
      lastFireAt: T0 + 6 * MINUTE,
      version: 2,
      maxRuns: 50,
    });
    expect(replaced.schedule.onNotes).toBeUndefined();
    expect(await dueIds()).toEqual(['s']);
  });

  it('converts no schedule with max_runs: its limit needs the item’s fire times current', async () => {
    await store.addSchedule({
      schedule: definition('capped', { maxRuns: 10 }),
      nextFireAt: FIRST,
      conflictPolicy: 'exception',
      now: T0,
    });

    expect(await store.convertScheduleToNotes(conversionOf('capped'))).toBe(false);
    expect(await store.getSchedule('capped')).toMatchObject({ runs: 0 });
    expect(await dueIds()).toEqual(['capped']);
  });

  it('refuses a write that read the schedule before its conversion, or one whose note is no longer its', async () => {
    await noted('s');
    await noted('p');

    // Read item-indexed (no note carried), written after the conversion: it would resend from the item.
    // One at a time: each is awaited before the next starts (none rejects unobserved).
    const stale = [
      () => store.updateSchedule('s', { maxJitterSeconds: 1 }, FIRST, T0 + MINUTE, 1),
      () => store.pauseSchedule('p', T0 + MINUTE),
      () =>
        store.addSchedule({
          schedule: definition('s'),
          nextFireAt: FIRST,
          conflictPolicy: 'replace',
          now: T0 + MINUTE,
        }),
    ];
    for (const write of stale) await expect(write()).rejects.toBeInstanceOf(ScheduleMovedError);
    // A note of version 1 carried onto version 2 (changed meanwhile) is not its.
    await store.updateSchedule('s', { maxJitterSeconds: 2 }, FIRST, T0 + MINUTE, 1, undefined, fromNote);
    await expect(
      store.updateSchedule(
        's',
        { maxJitterSeconds: 3 },
        FIRST,
        T0 + 2 * MINUTE,
        undefined,
        undefined,
        fromNote,
      ),
    ).rejects.toBeInstanceOf(ScheduleMovedError);

    expect(await store.getSchedule('s')).toMatchObject({ version: 2, maxJitterSeconds: 2, runs: 7 });
    expect(await store.getSchedule('p')).toMatchObject({ paused: false, onNotes: true, version: 1 });
  });

  it('finds the live notes of many schedules of a shard, reading each bucket given once', async () => {
    const B0 = bucketOf(DEFAULT_NOTE_GRID, T0);
    const ids: string[] = [];
    for (let n = 0; ids.length < 3; n++) if (shardOf(`n-${n}`, store.dueShards) === 1) ids.push(`n-${n}`);
    const [a, b, c] = ids as [string, string, string];
    const entry = (scheduleId: string, nextFireAt: number, version = 1): DueNoteEntry => ({
      scheduleId,
      version,
      createdAt: T0,
      nextFireAt,
      runs: 1,
      lastFireAt: null,
    });
    await store.writeDueNotes({
      writer: 'w-1',
      now: T0,
      notes: [
        { bucket: B0 + 2, entry: entry(a, T0 + 5 * MINUTE) },
        { bucket: B0 + 9, entry: entry(a, T0 + 3 * MINUTE) },
        { bucket: B0 + 2, entry: entry(b, T0 + 4 * MINUTE, 2) },
        { bucket: B0 + 5, entry: entry(b, T0 + 6 * MINUTE) },
        { bucket: B0 + 20, entry: entry(c, T0 + 7 * MINUTE) },
      ],
    });
    const identities = ids.map((scheduleId) => ({ scheduleId, version: 1, createdAt: T0 }));

    const found = await store.findLiveNotes({
      shard: 1,
      schedules: identities,
      buckets: [B0 + 2, B0 + 5, B0 + 9],
    });

    expect([...found.entries()].map(([id, note]) => [id, note.bucket, note.entry.nextFireAt]).sort()).toEqual(
      [
        [a, B0 + 9, T0 + 3 * MINUTE],
        [b, B0 + 5, T0 + 6 * MINUTE],
      ].sort(),
    );
    const thirteen = Array.from({ length: 13 }, (_, n) => B0 + n);
    await expect(
      store.findLiveNotes({ shard: 1, schedules: identities, buckets: thirteen }),
    ).rejects.toBeInstanceOf(RangeError);
  });
}
