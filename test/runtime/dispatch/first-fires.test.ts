import { describe, expect, it } from 'vitest';
import { idAtPhase, SECOND, T0 } from '../support';
import {
  dispatchRuntime,
  expectEveryFireOnce,
  expectSentOnceEach,
  fireTimes,
  interval,
  MINUTE,
  once,
  ranOnceEach,
} from './dispatch-harness';

const often = interval(10);
/** Schedules whose chunks start at the grid's own boundaries (T0 is one): the fires sent are counted by chunk. */
const SOON = idAtPhase('soon');
const SLOW = idAtPhase('slow');

/**
 * ADR 0008, 1: an admin write starts a schedule's chain (its item and first note in one write). When the
 * first fires come too soon for the tick, the call reads its own first note at once, sends them, notes
 * the chunk after them and removes its first note.
 */
describe('the first fires of a chain an admin write starts', () => {
  it('are sent by the admin call when they are imminent, each delayed to its run time, and never again by the tick', async () => {
    // Prepare: a schedule every 10 s from T0, added 20 s before
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * SECOND);

    // Act: the add, then a tick a minute from 30 s after T0, a worker running every fire as it comes
    const added = await runtime.add(SOON, often);
    const sentByAdmin = [...runtime.sent];
    const chain = (await runtime.store.getSchedule(SOON))?.chain;
    const notesAfterAdd = await runtime.allNotes(T0 + 10 * MINUTE);
    runtime.clock.set(T0 + 30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE, (at) => runtime.deliverDue(at));

    // Assess: the call sent its first fires itself, as a late reader of its first note: those of T0's
    // chunk and the next (the note of that one could not be read in time), each delayed by the whole
    // seconds to its run time
    expect(added.dispatched_jobs).toBe(sentByAdmin.length);
    expect(sentByAdmin.map((s) => s.message.job.fireTime)).toEqual(fireTimes(often, T0, T0 + 230 * SECOND));
    for (const { message } of sentByAdmin) {
      expect(message.delaySeconds).toBe(Math.floor((message.job.runAt - (T0 - 20 * SECOND)) / SECOND));
    }
    // Its first note is gone: only the note of the chunk after the fires it sent stands for the chain
    expect(
      notesAfterAdd.filter((note) => note.entry.chain === chain).map((note) => note.entry.nextFireAt),
    ).toEqual([T0 + 240 * SECOND]);
    // No fire was sent twice (the tick never read the first note), and each ran once
    expectSentOnceEach(runtime.sent);
    expectEveryFireOnce(runtime.sentOf(SOON), often, T0 + 15 * MINUTE);
    const ran = ranOnceEach(runtime.runs);
    expect(ran.times).toEqual(fireTimes(often, T0, T0 + 14 * MINUTE + 30 * SECOND));
    expect(ran.once).toBe(true);
  });

  it('are sent by the tick from the first note when the admin call died after its write', async () => {
    // Prepare: the item and its first note are written, and the call goes no further
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * SECOND);
    const planned = await runtime.addAndDie('orphan', often);
    expect(planned?.sendsFirstFires).toBe(true);

    // Act: the next tick comes 50 s later, when five of those fires are due already
    runtime.clock.set(T0 + 30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE, (at) => runtime.deliverDue(at));

    // Assess: every fire from the first note's was sent, the missed ones at once, each once; each ran once
    expect(runtime.sent[0]).toMatchObject({ at: T0 + 30 * SECOND, message: { job: { fireTime: T0 } } });
    expectEveryFireOnce(runtime.sentOf('orphan'), often, T0 + 15 * MINUTE);
    expectSentOnceEach(runtime.sent);
    const ran = ranOnceEach(runtime.runs);
    expect(ran.times).toEqual(fireTimes(often, T0, T0 + 14 * MINUTE + 30 * SECOND));
    expect(ran.once).toBe(true);
  });

  it('of a one-off end its chain in the admin call: the schedule is finished there and the tick sends nothing', async () => {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 30 * SECOND);

    const added = await runtime.add('once', once(T0));
    const afterAdd = await runtime.store.getSchedule('once');
    runtime.clock.set(T0 + 10 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE);

    expect(added).toMatchObject({ dispatched_jobs: 1, schedule: { next_fire_time: null, finished: true } });
    expect(afterAdd).toMatchObject({ nextFireAt: null, lastFireAt: T0, runs: 1 });
    expect(runtime.sent.map((s) => s.message.job.fireTime)).toEqual([T0]);
    expect(runtime.publisher.events.map((event) => event.type)).toEqual([
      'schedule.added',
      'schedule.finished',
    ]);
  });

  it('of a one-off whose admin call died after its write are sent once by the tick, which finishes the schedule', async () => {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 30 * SECOND);
    await runtime.addAndDie('once', once(T0));

    runtime.clock.set(T0 + 10 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE);

    expect(runtime.sent.map((s) => s.message.job.fireTime)).toEqual([T0]);
    expect(await runtime.store.getSchedule('once')).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0,
      runs: 1,
    });
    expect(runtime.summaries.reduce((sum, s) => sum + s.schedulesFinished, 0)).toBe(1);
  });

  it('are still sent when the write that starts the chain outlasted the placement margin and its note landed behind the cursor', async () => {
    // Prepare: a first note whose natural bucket is the first one open to the call; the write takes 30 s,
    // during which a tick reads past that bucket
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 170 * SECOND);
    const addSchedule = runtime.store.addSchedule.bind(runtime.store);
    let cursorWhenLanded: number | undefined;
    runtime.store.addSchedule = async (input) => {
      runtime.clock.advance(30 * SECOND);
      await runtime.tick();
      cursorWhenLanded = await runtime.store.readNoteCursor(runtime.store.noteShardOf(SLOW));
      return addSchedule(input);
    };

    // Act
    const added = await runtime.add(SLOW, often);
    runtime.store.addSchedule = addSchedule;
    runtime.clock.set(T0 - 80 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    // Assess: its note had landed in a bucket the cursor had passed; the call wrote it again
    expect(added.dispatched_jobs).toBe(0);
    expect(cursorWhenLanded).toBeGreaterThanOrEqual(Math.floor((T0 - 150 * SECOND) / (10 * SECOND)));
    expectEveryFireOnce(runtime.sentOf(SLOW), often, T0 + 10 * MINUTE);
  });
});
