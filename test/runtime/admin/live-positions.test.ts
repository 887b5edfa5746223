import { describe, expect, it, vi } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { idAtPhase } from '../support';
import { createHarness, type Harness, MINUTE, T0 } from './support/harness';
import { fromNote, HOUR, hourly, iso, movedOn, type WireSchedule } from './support/moved-on';
import { tickOf } from './support/tick';

/** A schedule whose chunks start at the grid's own boundaries: where its chain stands depends on it. */
const S = idAtPhase('s');

/**
 * ADR 0008: an active schedule is moved on by its note chain alone; its item keeps where that chain
 * started. The admin API answers and changes every active schedule from its live note.
 */

const get = async (h: Harness, id: string) =>
  (await h.ok<{ schedule: WireSchedule }>({ action: 'get_schedule', id })).schedule;

describe('admin reads of a schedule’s position', () => {
  it('get_schedule and list_schedules answer next and last fire and runs from the live note of every active schedule', async () => {
    const h = createHarness();
    await movedOn(h, ['moved']);
    await h.ok({ action: 'add_schedule', id: 'fresh', task: 'cleanup', trigger: hourly });
    await h.ok({ action: 'add_schedule', id: 'held', task: 'cleanup', trigger: hourly, paused: true });

    const got = await get(h, 'moved');
    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules' });

    expect(await h.store.getSchedule('moved')).toMatchObject({ nextFireAt: T0, lastFireAt: null, runs: 0 });
    expect(got).toMatchObject({ ...fromNote, finished: false, paused: false, version: 1 });
    expect(listed.schedules.map((s) => [s.id, s.next_fire_time, s.last_fire_time, s.runs])).toEqual([
      ['fresh', iso(T0 + 3 * HOUR), null, 0],
      ['held', iso(T0 + 3 * HOUR), null, 0],
      ['moved', fromNote.next_fire_time, fromNote.last_fire_time, 3],
    ]);
    expect(h.logs).toEqual([]);
  });

  it('reads each bucket once per shard for a whole page, and no note at all for paused schedules', async () => {
    const h = createHarness();
    const ids = Array.from({ length: 20 }, (_, n) => `moved-${n}`);
    await movedOn(h, ids);
    for (let n = 0; n < 3; n++) {
      await h.ok({ action: 'add_schedule', id: `held-${n}`, task: 'cleanup', trigger: hourly, paused: true });
    }
    const find = vi.spyOn(h.store, 'findLiveNotes');
    const cursors = vi.spyOn(h.store, 'readNoteCursor');
    await h.ok({ action: 'get_schedule', id: 'held-0' });
    await h.ok({ action: 'list_schedules', paused: true });
    const pausedOnly = [find.mock.calls.length, cursors.mock.calls.length];

    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules', limit: 50 });

    const shards = new Set(ids.map((id) => shardOf(id, h.store.dueShards)));
    expect(pausedOnly).toEqual([0, 0]);
    expect(listed.schedules.filter((s) => s.id.startsWith('moved')).every((s) => s.runs === 3)).toBe(true);
    expect(cursors.mock.calls.length).toBe(shards.size);
    // Per shard: the late buckets after its cursor and the hour's one natural bucket, in one call.
    expect(find.mock.calls.length).toBe(shards.size);
    for (const [input] of find.mock.calls) expect(input.buckets.length).toBeLessThanOrEqual(12);
  });

  it('answers where the chain started, and logs it, when no live note is found', async () => {
    const h = createHarness();
    await movedOn(h, ['lost'], { lost: ['lost'] });

    const got = await get(h, 'lost');

    expect(got).toMatchObject({ next_fire_time: iso(T0), last_fire_time: null, runs: 0, finished: false });
    expect(h.logs).toMatchObject([
      {
        level: 'warn',
        message: expect.stringContaining('no live note found'),
        fields: { scheduleId: 'lost' },
      },
    ]);
  });
});

describe('admin changes of a schedule moved on by its chain', () => {
  it('update_schedule of the payload leaves the chain going on, and answers where it stands', async () => {
    const h = createHarness();
    await movedOn(h, [S]);
    const before = await h.store.getSchedule(S);

    const updated = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: S,
      payload: { dir: '/srv' },
    });
    h.clock.set(T0 + 2 * HOUR + 46 * MINUTE);
    await tickOf(h)();

    const after = await h.store.getSchedule(S);
    expect(updated.schedule).toMatchObject({ ...fromNote, version: 2 });
    expect(after).toMatchObject({
      chain: before?.chain,
      firesFrom: before?.firesFrom,
      nextFireAt: T0,
      runs: 0,
    });
    // The chain's next note sends 12:00 with the new payload
    expect(h.queue.messages.at(-1)?.job).toMatchObject({ fireTime: T0 + 3 * HOUR, payload: { dir: '/srv' } });
  });

  it('pause_schedule keeps where the schedule stood; a replaying resume starts after the note’s last fire', async () => {
    const h = createHarness();
    await movedOn(h, [S]);
    const sent = h.queue.messages.length;

    const paused = await h.ok<{ schedule: WireSchedule }>({ action: 'pause_schedule', id: S });
    h.clock.advance(10 * MINUTE);
    const resumed = await h.ok<{ schedule: WireSchedule }>({
      action: 'resume_schedule',
      id: S,
      replay_missed: true,
    });

    expect(paused.schedule).toMatchObject({ ...fromNote, paused: true, version: 2 });
    expect(await h.store.getSchedule(S)).toMatchObject({ nextFireAt: T0 + 3 * HOUR, runs: 3 });
    // Replaying from after the note's last fire (11:00), not the item's: 11:00 is not sent again.
    expect(resumed.schedule).toMatchObject({ ...fromNote, paused: false, version: 3 });
    expect(h.queue.messages.length).toBe(sent);
  });

  it('pause_schedule takes the fires its chain sent ahead out of runs', async () => {
    // Prepare: every 30 s; the add sent 0..210 s itself (runs 8); 0, 30 and 60 s are due at 65 s
    const h = createHarness();
    await h.ok({
      action: 'add_schedule',
      id: S,
      task: 'cleanup',
      trigger: { type: 'interval', seconds: 30 },
    });
    h.clock.set(T0 + 65_000);

    const paused = await h.ok<{ schedule: WireSchedule }>({ action: 'pause_schedule', id: S });
    const read = await get(h, S);

    expect(paused.schedule).toMatchObject({
      paused: true,
      runs: 3,
      last_fire_time: iso(T0 + 60_000),
      next_fire_time: iso(T0 + 240_000),
    });
    expect(read).toEqual(paused.schedule);
  });

  it('a max_runs update counts the live note’s runs', async () => {
    const h = createHarness();
    await movedOn(h, ['capped', 'room']);

    const capped = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'capped',
      max_runs: 3,
    });
    const room = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'room',
      max_runs: 4,
    });

    // The item alone says no runs: max_runs 3 would have left it three more fires.
    expect(capped.schedule).toMatchObject({ runs: 3, next_fire_time: null, finished: true });
    expect(room.schedule).toMatchObject({ ...fromNote, finished: false });
    expect(await h.store.getSchedule('room')).toMatchObject({ startedRuns: 3 });
  });

  it('add_schedule with replace keeps the live note’s runs, in a new chain', async () => {
    const h = createHarness();
    await movedOn(h, [S]);
    const before = await h.store.getSchedule(S);

    const replaced = await h.ok<{ status: string; schedule: WireSchedule }>({
      action: 'add_schedule',
      id: S,
      task: 'cleanup',
      trigger: hourly,
      conflict_policy: 'replace',
    });

    expect(replaced).toMatchObject({ status: 'replaced', schedule: { ...fromNote, version: 2 } });
    expect((await h.store.getSchedule(S))?.chain).not.toBe(before?.chain);
  });

  it('restarts a schedule whose live note was lost with a pause and a resume', async () => {
    const h = createHarness();
    await movedOn(h, ['lost'], { lost: ['lost'] });

    await h.ok({ action: 'pause_schedule', id: 'lost' });
    const resumed = await h.ok<{ schedule: WireSchedule }>({ action: 'resume_schedule', id: 'lost' });
    h.clock.set(T0 + 2 * HOUR + 46 * MINUTE);
    await tickOf(h)();

    expect(resumed.schedule).toMatchObject({ next_fire_time: iso(T0 + 3 * HOUR), paused: false });
    expect(h.queue.messages.at(-1)?.job).toMatchObject({ id: `lost@${T0 + 3 * HOUR}` });
  });
});
