import { describe, expect, it, vi } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { createHarness, type Harness, MINUTE } from './support/harness';
import { F1, fromNote, HOUR, hourly, iso, notedSchedule, type WireSchedule } from './support/noted-schedules';

/**
 * Schedules moved on by due notes (ADR 0007), set up through the store port as the tick will leave them:
 * converted at their first fire, their chain one hour further in a note. The admin API answers and
 * changes them from their live note.
 */

const get = async (h: Harness, id: string) =>
  (await h.ok<{ schedule: WireSchedule }>({ action: 'get_schedule', id })).schedule;
const dueIds = async (h: Harness) =>
  (
    await h.store.readDueSchedules({ now: h.clock.now(), dueBefore: h.clock.now() + 10 * HOUR, limit: 100 })
  ).map((schedule) => schedule.id);

describe('admin reads of schedules on due notes (ADR 0007)', () => {
  it('get_schedule and list_schedules answer next and last fire and runs from the live note, as active', async () => {
    const h = createHarness();
    await notedSchedule(h, 'noted');
    await h.ok({ action: 'add_schedule', id: 'plain', task: 'cleanup', trigger: hourly });

    const got = await get(h, 'noted');
    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules' });

    expect(await h.store.getSchedule('noted')).toMatchObject({ onNotes: true, nextFireAt: F1, runs: 1 });
    expect(got).toMatchObject({ ...fromNote, finished: false, paused: false, version: 1 });
    expect(listed.schedules.map((s) => [s.id, s.next_fire_time, s.runs, s.finished])).toEqual([
      ['noted', fromNote.next_fire_time, 2, false],
      ['plain', iso(F1 + 2 * HOUR), 0, false],
    ]);
    expect(h.logs).toEqual([]);
  });

  it('reads each bucket once per shard for a whole page, and no note at all for schedules not on notes', async () => {
    const h = createHarness();
    const find = vi.spyOn(h.store, 'findLiveNotes');
    const cursors = vi.spyOn(h.store, 'readNoteCursor');
    for (let n = 0; n < 3; n++)
      await h.ok({ action: 'add_schedule', id: `plain-${n}`, task: 'cleanup', trigger: hourly });
    await h.ok({ action: 'get_schedule', id: 'plain-0' });
    await h.ok({ action: 'list_schedules' });
    expect([find.mock.calls.length, cursors.mock.calls.length]).toEqual([0, 0]);

    const ids = Array.from({ length: 20 }, (_, n) => `noted-${n}`);
    for (const id of ids) await notedSchedule(h, id);
    find.mockClear();
    cursors.mockClear();

    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules', limit: 50 });

    const shards = new Set(ids.map((id) => shardOf(id, h.store.dueShards)));
    expect(listed.schedules.filter((s) => s.id.startsWith('noted')).every((s) => s.runs === 2)).toBe(true);
    expect(cursors.mock.calls.length).toBe(shards.size);
    // Per shard: the late buckets after its cursor and the hour's one natural bucket, in one call.
    expect(find.mock.calls.length).toBe(shards.size);
    for (const [input] of find.mock.calls) expect(input.buckets.length).toBeLessThanOrEqual(12);
  });

  it('answers the item’s own fire times, and logs it, when no live note is found', async () => {
    const h = createHarness();
    await notedSchedule(h, 'lost', {}, true);

    const got = await get(h, 'lost');

    expect(got).toMatchObject({ next_fire_time: iso(F1), last_fire_time: iso(F1), runs: 1, finished: false });
    expect(h.logs).toMatchObject([
      {
        level: 'warn',
        message: expect.stringContaining('no live note found'),
        fields: { scheduleId: 'lost' },
      },
    ]);
  });
});

describe('admin changes of schedules on due notes (ADR 0007)', () => {
  it('update_schedule carries the live note’s runs and last fire onto the item and puts it back in the due index', async () => {
    const h = createHarness();
    await notedSchedule(h, 's');

    const updated = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 's',
      tags: ['x'],
    });

    expect(updated.schedule).toMatchObject({ ...fromNote, version: 2 });
    expect(await h.store.getSchedule('s')).toMatchObject({ nextFireAt: F1 + 2 * HOUR, runs: 2, version: 2 });
    expect((await h.store.getSchedule('s'))?.onNotes).toBeUndefined();
    expect(await dueIds(h)).toEqual(['s']);
  });

  it('pause_schedule and resume_schedule keep the note’s runs and last fire; the resume indexes the schedule', async () => {
    const h = createHarness();
    await notedSchedule(h, 's');

    const paused = await h.ok<{ schedule: WireSchedule }>({ action: 'pause_schedule', id: 's' });
    h.clock.advance(10 * MINUTE);
    const resumed = await h.ok<{ schedule: WireSchedule }>({
      action: 'resume_schedule',
      id: 's',
      replay_missed: true,
    });

    expect(paused.schedule).toMatchObject({ ...fromNote, paused: true, version: 2 });
    // Replaying from after the note's last fire (11:00), not the item's (10:00): 11:00 is not sent again.
    expect(resumed.schedule).toMatchObject({ ...fromNote, paused: false, version: 3 });
    expect(await dueIds(h)).toEqual(['s']);
  });

  it('a max_runs update counts the live note’s runs', async () => {
    const h = createHarness();
    await notedSchedule(h, 'capped');
    await notedSchedule(h, 'room');

    const capped = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'capped',
      max_runs: 2,
    });
    const room = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'room',
      max_runs: 3,
    });

    // The item alone says 1 run: max_runs 2 would have left it one more fire.
    expect(capped.schedule).toMatchObject({ runs: 2, next_fire_time: null, finished: true });
    expect(room.schedule).toMatchObject({ ...fromNote, finished: false });
    expect(await dueIds(h)).toEqual(['room']);
  });

  it('add_schedule with replace keeps the live note’s runs', async () => {
    const h = createHarness();
    await notedSchedule(h, 's');

    const replaced = await h.ok<{ status: string; schedule: WireSchedule }>({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: hourly,
      conflict_policy: 'replace',
    });

    expect(replaced).toMatchObject({ status: 'replaced', schedule: { runs: 2, version: 2 } });
    expect(replaced.schedule.last_fire_time).toBe(fromNote.last_fire_time);
    expect(await dueIds(h)).toEqual(['s']);
  });

  it('changes a schedule whose live note was not found from its item’s values, item-indexed again', async () => {
    const h = createHarness();
    await notedSchedule(h, 'lost', {}, true);

    const updated = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'lost',
      tags: ['x'],
    });

    expect(updated.schedule).toMatchObject({ next_fire_time: iso(F1), runs: 1, version: 2 });
    expect(await dueIds(h)).toEqual(['lost']);
  });
});
