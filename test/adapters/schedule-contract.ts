import { beforeEach, expect, it } from 'vitest';
import {
  ConflictingIdError,
  ScheduleMovedError,
  ScheduleNotFoundError,
  VersionConflictError,
} from '../../lib/core/errors';
import { closingNote } from '../../lib/core/planning/closing-notes';
import { DEFAULT_NOTE_GRID, firstOpenBucket } from '../../lib/core/planning/note-chunks';
import {
  addActive,
  chainStart,
  definition,
  failure,
  fireRequest,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  startingAt,
  T0,
} from './store-fixtures';

/** The first open bucket of a writer at T0: where the chain starts of these tests put their notes. */
const OPEN = firstOpenBucket(DEFAULT_NOTE_GRID, T0);

export function scheduleContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  /** The notes of schedule `id` in the bucket `bucket` of its shard, as a reader would find them. */
  const notesOf = async (id: string, bucket = OPEN) => {
    const shard = store.noteShardOf(id);
    const page = await store.readDueNotes({
      shard,
      afterBucket: bucket - 1,
      now: (bucket + 1) * DEFAULT_NOTE_GRID.bucketMs - 1,
      limit: 100,
      from: { bucket },
    });
    return page.notes.filter((note) => note.bucket === bucket && note.entry.scheduleId === id);
  };

  it('adds a schedule at version 1 with its chain, and returns it unchanged when read', async () => {
    const added = await addActive(store, 'nightly');

    const read = await store.getSchedule('nightly');

    expect(added.status).toBe('added');
    expect(read).toEqual({
      ...definition('nightly'),
      ...startingAt(T0 + 10 * SECOND),
      firesFrom: T0,
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      chain: 'c1',
      startedRuns: 0,
      lastStartedFireAt: null,
    });
    expect(added.schedule).toEqual(read);
    expect(await store.getSchedule('missing')).toBeUndefined();
  });

  it("writes the chain's first note with the schedule, and neither when the write is refused", async () => {
    await addActive(store, 's');

    const refused = await failure(addActive(store, 's', { chain: 'c2', now: T0 + 1 }));
    const kept = await addActive(store, 's', { chain: 'c3', now: T0 + 2, conflictPolicy: 'do_nothing' });

    expect(refused).toBeInstanceOf(ConflictingIdError);
    expect(kept).toMatchObject({ status: 'kept', schedule: { chain: 'c1' } });
    expect((await notesOf('s')).map((note) => note.entry)).toEqual([
      { scheduleId: 's', chain: 'c1', nextFireAt: T0 + 10 * SECOND, runs: 0, lastFireAt: null },
    ]);
  });

  it('refuses a chain start whose note would land before the first open bucket, writing nothing', async () => {
    const position = startingAt(T0 + 10 * SECOND);

    const refused = await failure(
      store.addSchedule({
        schedule: definition('s'),
        position,
        start: chainStart('s', 'c1', position, T0, OPEN - 1),
        conflictPolicy: 'exception',
        now: T0,
      }),
    );

    expect(refused).toBeInstanceOf(RangeError);
    expect(await store.getSchedule('s')).toBeUndefined();
  });

  it('adds a paused schedule, or one with no fire time, without a chain', async () => {
    const paused = await store.addSchedule({
      schedule: definition('paused', { paused: true }),
      position: startingAt(T0 + MINUTE),
      conflictPolicy: 'exception',
      now: T0,
    });
    const over = await store.addSchedule({
      schedule: definition('over'),
      position: startingAt(null),
      conflictPolicy: 'exception',
      now: T0,
    });

    expect(paused.schedule).toMatchObject({ paused: true, chain: null, nextFireAt: T0 + MINUTE });
    expect(over.schedule).toMatchObject({ paused: false, chain: null, nextFireAt: null });
    expect(await store.getSchedule('over')).toMatchObject({ nextFireAt: null, chain: null });
  });

  /** Claims the fire of schedule `id` at `fireTime` (owner `w-<fire time>`) and counts it as started. */
  const startRun = async (id: string, fireTime: number, maxRuns: number) => {
    const owner = `w-${fireTime}`;
    await store.claimJob({
      job: fireRequest(id, fireTime),
      attempt: 1,
      owner,
      now: T0,
      leaseUntil: T0 + MINUTE,
    });
    return store.startCappedRun({
      scheduleId: id,
      createdAt: T0,
      maxRuns,
      jobId: `${id}@${fireTime}`,
      owner,
      fireTime,
    });
  };

  it('replaces a schedule: new definition, position and chain; keeps its creation and started runs', async () => {
    await addActive(store, 's', { schedule: { maxRuns: 5 } });
    expect(await startRun('s', T0, 5)).toBe('started');
    const position = { nextFireAt: T0 + MINUTE, lastFireAt: T0 + 5 * SECOND, runs: 2 };

    const replaced = await store.addSchedule({
      schedule: definition('s', { task: 'other', misfireGraceSeconds: null, maxRuns: 5 }),
      position,
      start: chainStart('s', 'c2', position, T0 + 3),
      conflictPolicy: 'replace',
      now: T0 + 3,
    });

    expect(replaced).toMatchObject({
      status: 'replaced',
      schedule: {
        task: 'other',
        misfireGraceSeconds: null,
        version: 2,
        createdAt: T0,
        updatedAt: T0 + 3,
        firesFrom: T0 + 3,
        ...position,
        chain: 'c2',
        startedRuns: 1,
      },
    });
    expect(await store.getSchedule('s')).toEqual(replaced.schedule);
    expect(
      (await notesOf('s', firstOpenBucket(DEFAULT_NOTE_GRID, T0 + 3))).map((n) => n.entry.chain),
    ).toContain('c2');
  });

  it('updates with an expected version and rejects a stale one or an unknown id', async () => {
    await addActive(store, 's');

    const updated = await store.updateSchedule({
      id: 's',
      changes: { payload: { v: 2 }, tags: ['a', 'b'] },
      now: T0 + 5,
      expectedVersion: 1,
    });
    const stale = await failure(
      store.updateSchedule({ id: 's', changes: { payload: { v: 3 } }, now: T0 + 6, expectedVersion: 1 }),
    );
    const unknown = await failure(
      store.updateSchedule({ id: 'nope', changes: { payload: 1 }, now: T0 + 6, expectedVersion: 1 }),
    );

    // The chain goes on: nothing of the position moves without a restart.
    expect(updated).toMatchObject({
      payload: { v: 2 },
      tags: ['a', 'b'],
      version: 2,
      nextFireAt: T0 + 10 * SECOND,
      chain: 'c1',
      firesFrom: T0,
      task: 'send-report',
    });
    expect(stale).toBeInstanceOf(VersionConflictError);
    expect(unknown).toBeInstanceOf(ScheduleNotFoundError);
  });

  it('keeps who manages a schedule declared in code through updates, pauses and resumes', async () => {
    const byCode = {
      declaredIn: 'functions/send-report.ts',
      deployment: 'deploy-1',
      fingerprint: 'f1',
      addedIn: 'r1',
      addedOver: '',
    };
    await addActive(store, 'code', { schedule: { managedBy: byCode } });
    await addActive(store, 'api');

    const added = await store.getSchedule('code');
    const changed = { ...byCode, deployment: 'deploy-2', fingerprint: 'f2' };
    const updated = await store.updateSchedule({
      id: 'code',
      changes: { payload: 2, managedBy: changed },
      now: T0 + 1,
      expectedVersion: 1,
    });
    const stood = startingAt(T0 + 10 * SECOND);
    await store.pauseSchedule({ id: 'code', now: T0 + 2, position: stood, seenVersion: 2 });
    const resumed = await store.resumeSchedule({
      id: 'code',
      now: T0 + 3,
      firesFrom: T0 + 3,
      position: stood,
    });

    expect(added?.managedBy).toEqual(byCode);
    expect(updated.managedBy).toEqual(changed);
    expect(resumed.managedBy).toEqual(changed);
    expect((await store.getSchedule('api'))?.managedBy).toBeUndefined();
    const listed = await store.listSchedules({}, { limit: 10 });
    expect(listed.items.map((schedule) => [schedule.id, schedule.managedBy?.deployment])).toEqual([
      ['api', undefined],
      ['code', 'deploy-2'],
    ]);
  });

  it('restarts a schedule on an update: its position and a new chain with its note, in one write', async () => {
    await addActive(store, 's');
    const position = { nextFireAt: T0 + 2 * MINUTE, lastFireAt: T0 + 10 * SECOND, runs: 1 };
    const trigger = definition('s', {}).trigger;

    const restarted = await store.updateSchedule({
      id: 's',
      changes: { trigger },
      now: T0 + 7,
      expectedVersion: 1,
      restart: { position, start: chainStart('s', 'c2', position, T0 + 7), startedRuns: 1 },
    });
    const finishedNow = await store.updateSchedule({
      id: 's',
      changes: { maxRuns: 1 },
      now: T0 + 8,
      expectedVersion: 2,
      restart: { position: { ...position, nextFireAt: null } },
    });

    expect(restarted).toMatchObject({
      ...position,
      chain: 'c2',
      firesFrom: T0 + 7,
      startedRuns: 1,
      version: 2,
    });
    expect(
      (await notesOf('s', firstOpenBucket(DEFAULT_NOTE_GRID, T0 + 7))).map((n) => n.entry),
    ).toContainEqual({
      scheduleId: 's',
      chain: 'c2',
      ...position,
    });
    // Finished by its owner's change: no next fire, and the chain it had (whose notes no longer stand).
    expect(finishedNow).toMatchObject({ nextFireAt: null, chain: 'c2', maxRuns: 1, version: 3 });
  });

  it('writes a closing note with an update that stops keeping a finished schedule, and leaves its position', async () => {
    await addActive(store, 'k', { schedule: { keepFinished: true } });
    const ended = { nextFireAt: null, lastFireAt: T0 + 10 * SECOND, runs: 1 };
    await store.updateSchedule({
      id: 'k',
      changes: { maxRuns: 1 },
      now: T0 + 1,
      expectedVersion: 1,
      restart: { position: ended },
    });
    const note = closingNote(
      DEFAULT_NOTE_GRID,
      { scheduleId: 'k', chain: 'c9', runs: 1, lastFireAt: T0 + 10 * SECOND },
      T0 + 2,
    );

    const updated = await store.updateSchedule({
      id: 'k',
      changes: { keepFinished: false },
      now: T0 + 2,
      expectedVersion: 2,
      closing: { chain: 'c9', note, writer: 'test.k.c9.0', now: T0 + 2 },
    });

    expect(updated).toMatchObject({
      ...ended,
      keepFinished: false,
      chain: 'c1',
      firesFrom: T0 + 1,
      version: 3,
    });
    expect((await notesOf('k', note.bucket)).map((n) => n.entry)).toEqual([note.entry]);
  });

  it('keeps a payload updated to null as null: a payload is any JSON', async () => {
    await addActive(store, 'p');

    const updated = await store.updateSchedule({
      id: 'p',
      changes: { payload: null },
      now: T0 + 1,
      expectedVersion: 1,
    });

    expect(updated).toHaveProperty('payload', null);
    expect(await store.getSchedule('p')).toHaveProperty('payload', null);
  });

  it('ends the chain on pause, keeping where it stood, and starts a new one on resume', async () => {
    await addActive(store, 's');
    const stood = { nextFireAt: T0 + MINUTE, lastFireAt: T0 + 50 * SECOND, runs: 9 };

    const paused = await store.pauseSchedule({ id: 's', now: T0 + 1, position: stood, seenVersion: 1 });
    const pausedAgain = await store.pauseSchedule({ id: 's', now: T0 + 2, position: stood, seenVersion: 1 });
    const updatedWhilePaused = await store.updateSchedule({
      id: 's',
      changes: { payload: 'x' },
      now: T0 + 3,
      expectedVersion: 2,
    });
    const resumedAt = { ...stood, nextFireAt: T0 + 2 * MINUTE };
    const resumed = await store.resumeSchedule({
      id: 's',
      now: T0 + 4,
      firesFrom: T0 + 4,
      position: resumedAt,
      start: chainStart('s', 'c2', resumedAt, T0 + 4),
    });
    const resumedAgain = await store.resumeSchedule({
      id: 's',
      now: T0 + 5,
      firesFrom: T0 + 5,
      position: startingAt(T0),
    });

    expect(paused).toMatchObject({ paused: true, version: 2, chain: null, ...stood, firesFrom: T0 + 1 });
    expect(pausedAgain).toEqual(paused);
    expect(updatedWhilePaused).toMatchObject({ paused: true, chain: null, payload: 'x', version: 3 });
    expect(resumed).toMatchObject({
      paused: false,
      version: 4,
      chain: 'c2',
      ...resumedAt,
      firesFrom: T0 + 4,
    });
    expect(resumedAgain).toEqual(resumed);
  });

  it('does not pause a schedule changed since the position was read', async () => {
    await addActive(store, 's');
    await store.updateSchedule({ id: 's', changes: { payload: 2 }, now: T0 + 1, expectedVersion: 1 });

    const moved = await failure(
      store.pauseSchedule({ id: 's', now: T0 + 2, position: startingAt(T0 + MINUTE), seenVersion: 1 }),
    );

    expect(moved).toBeInstanceOf(ScheduleMovedError);
    expect(await store.getSchedule('s')).toMatchObject({ paused: false, chain: 'c1', version: 2 });
  });

  it('moves firesFrom to where the current definition starts: a new trigger, a pause, a resume', async () => {
    await addActive(store, 's');
    const trigger = definition('s').trigger;

    const samePlan = await store.updateSchedule({
      id: 's',
      changes: { payload: { v: 2 } },
      now: T0 + 1,
      expectedVersion: 1,
    });
    const newTrigger = await store.updateSchedule({
      id: 's',
      changes: { trigger },
      now: T0 + 2,
      expectedVersion: 2,
    });
    const paused = await store.pauseSchedule({
      id: 's',
      now: T0 + 3,
      position: startingAt(T0 + MINUTE),
      seenVersion: 3,
    });
    const resumed = await store.resumeSchedule({
      id: 's',
      now: T0 + 5,
      firesFrom: T0 + 3,
      position: startingAt(T0 + 10 * SECOND),
    });
    const replaced = await store.addSchedule({
      schedule: definition('s'),
      position: startingAt(T0 + MINUTE),
      conflictPolicy: 'replace',
      now: T0 + 6,
    });

    expect(samePlan.firesFrom).toBe(T0);
    expect(newTrigger.firesFrom).toBe(T0 + 2);
    expect(paused.firesFrom).toBe(T0 + 3);
    expect(resumed).toMatchObject({ paused: false, firesFrom: T0 + 3 });
    expect(replaced.schedule.firesFrom).toBe(T0 + 6);
    expect((await store.getSchedule('s'))?.firesFrom).toBe(T0 + 6);
  });

  it('finishes a schedule whose chain ended, only while it names that chain and is not paused', async () => {
    await addActive(store, 's');
    await addActive(store, 'other-chain');
    await addActive(store, 'paused');
    await store.pauseSchedule({
      id: 'paused',
      now: T0 + 1,
      position: startingAt(T0 + MINUTE),
      seenVersion: 1,
    });
    const end = { chain: 'c1', lastFireAt: T0 + 3 * MINUTE, runs: 37 };

    const finished = await store.finishSchedule({ id: 's', ...end });
    const retried = await store.finishSchedule({ id: 's', ...end });
    const otherEnd = await store.finishSchedule({ id: 's', ...end, lastFireAt: T0 + 4 * MINUTE });
    const ofOtherChain = await store.finishSchedule({ id: 'other-chain', ...end, chain: 'c0' });
    const ofPaused = await store.finishSchedule({ id: 'paused', ...end });
    const ofNone = await store.finishSchedule({ id: 'gone', ...end });

    expect([finished, retried, otherEnd, ofOtherChain, ofPaused, ofNone]).toEqual([
      'finished',
      'finished',
      'moved',
      'moved',
      'moved',
      'moved',
    ]);
    // It keeps its chain: that chain's last note still stands for the fires up to its last.
    expect(await store.getSchedule('s')).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0 + 3 * MINUTE,
      runs: 37,
      chain: 'c1',
      version: 1,
    });
    expect(await store.getSchedule('other-chain')).toMatchObject({ nextFireAt: T0 + 10 * SECOND });
  });

  it('counts each started run of a capped schedule once, never past max_runs', async () => {
    await addActive(store, 'capped', { schedule: { maxRuns: 2 } });
    const start = (fireTime: number, owner = `w-${fireTime}`, createdAt = T0) =>
      store.startCappedRun({
        scheduleId: 'capped',
        createdAt,
        maxRuns: 2,
        jobId: `capped@${fireTime}`,
        owner,
        fireTime,
      });

    const first = await startRun('capped', T0, 2);
    const again = await start(T0);
    const second = await startRun('capped', T0 + 1, 2);
    const third = await startRun('capped', T0 + 2, 2);
    const notOwner = await start(T0, 'someone-else');
    const otherIncarnation = await start(T0 + 2, `w-${T0 + 2}`, T0 - 1);

    expect([first, again, second, third, notOwner, otherIncarnation]).toEqual([
      'started',
      'started',
      'started',
      'limit_reached',
      'gone',
      'gone',
    ]);
    expect(await store.getSchedule('capped')).toMatchObject({ startedRuns: 2 });
  });

  it('keeps the latest fire time a counted run started, whatever order the fires start in', async () => {
    await addActive(store, 'capped', { schedule: { maxRuns: 5 } });
    const before = await store.getSchedule('capped');

    // 20 s starts before 10 s (its message came up first), then 30 s
    const steps = [];
    for (const seconds of [20, 10, 30]) {
      const outcome = await startRun('capped', T0 + seconds * SECOND, 5);
      const schedule = await store.getSchedule('capped');
      steps.push([outcome, schedule?.startedRuns, ((schedule?.lastStartedFireAt ?? T0) - T0) / SECOND]);
    }

    expect(before).toMatchObject({ startedRuns: 0, lastStartedFireAt: null });
    expect(steps).toEqual([
      ['started', 1, 20],
      ['started', 2, 20],
      ['started', 3, 30],
    ]);
  });

  it('lists schedules in id order with filters, each exactly once across pages', async () => {
    for (const n of range(37)) {
      const id = `s-${String(n).padStart(2, '0')}`;
      const schedule = definition(id, {
        task: n % 2 ? 'odd' : 'even',
        tags: n % 3 ? ['x'] : ['x', 'third'],
        paused: n % 5 === 0,
      });
      await store.addSchedule({
        schedule,
        position: startingAt(T0 + n),
        conflictPolicy: 'exception',
        now: T0,
      });
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
