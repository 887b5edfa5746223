import { describe, expect, it } from 'vitest';
import { SECOND, T0 } from '../support';
import { expectEveryFireOnce, interval, MINUTE, notesRuntime } from './notes-harness';

const often = interval(10);

/** Holds the store's first call of `convertScheduleToNotes` until `release`; `reached` resolves when it comes. */
function holdFirstConversion(store: ReturnType<typeof notesRuntime>['store']) {
  const convert = store.convertScheduleToNotes.bind(store);
  let release: () => void = () => {};
  let reachedIt: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reachedIt = resolve;
  });
  let held = false;
  const outcomes: boolean[] = [];
  store.convertScheduleToNotes = async (input) => {
    if (!held) {
      held = true;
      reachedIt();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    }
    const outcome = await convert(input);
    outcomes.push(outcome);
    return outcome;
  };
  return { reached, release: () => release(), outcomes };
}

describe('due notes: the conversion on advance (ADR 0007)', () => {
  it('keeps every fire when two ticks convert one schedule from one state, 30 s apart: one conversion is refused', async () => {
    // Prepare: A reads the schedule, sends, notes its successor and stalls before its conversion
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    await runtime.add('s', often);
    runtime.clock.set(T0 - 60 * SECOND);
    const held = holdFirstConversion(runtime.store);
    const a = runtime.tick();
    await held.reached;

    // Act: B, 30 s later, reads the same state and converts it; then A's conversion comes
    runtime.clock.advance(30 * SECOND);
    await runtime.tick();
    held.release();
    await a;
    runtime.clock.advance(30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 30 * MINUTE);

    // Assess: A's note (earlier than B's) stands too; the two chains meet, nothing is lost or extra
    expect(held.outcomes).toEqual([true, false]);
    expect(runtime.summaries[1]?.leasesLost).toBe(1);
    expectEveryFireOnce(runtime.sentOf('s'), often, T0 + 30 * MINUTE);
    const later = runtime.sentOf('s').filter((s) => s.at > T0 + 10 * MINUTE);
    expect(later.length).toBe(new Set(later.map((s) => s.message.job.id)).size);
  });

  it('keeps every fire when the conversion raises after the note was written: the note stands while the item is indexed', async () => {
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    await runtime.add('s', often);
    const convert = runtime.store.convertScheduleToNotes.bind(runtime.store);
    let failures = 0;
    runtime.store.convertScheduleToNotes = async (input) => {
      if (failures++ < 2) throw new Error('store unavailable');
      return convert(input);
    };

    await runtime.tickEveryMinuteUntil(T0 + 20 * MINUTE);

    expect(runtime.summaries.filter((s) => s.errors > 0)).toHaveLength(2);
    expect(await runtime.store.getSchedule('s')).toMatchObject({ onNotes: true });
    expectEveryFireOnce(runtime.sentOf('s'), often, T0 + 20 * MINUTE);
    const later = runtime.sentOf('s').filter((s) => s.at > T0 + 10 * MINUTE);
    expect(later.length).toBe(new Set(later.map((s) => s.message.job.id)).size);
  });

  it('moves the schedule on as before when its successor note cannot be written', async () => {
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    await runtime.add('s', often);
    const write = runtime.store.writeDueNotes.bind(runtime.store);
    let writes = 0;
    runtime.store.writeDueNotes = async (input) => {
      if (writes++ === 0) throw new Error('store unavailable');
      return write(input);
    };
    runtime.clock.set(T0 - 60 * SECOND);

    await runtime.tick();
    const afterFailedWrite = await runtime.store.getSchedule('s');
    runtime.clock.advance(MINUTE);
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    expect(afterFailedWrite).toMatchObject({ nextFireAt: T0 + 40 * SECOND, runs: 4 });
    expect(afterFailedWrite?.onNotes).toBeUndefined();
    expectEveryFireOnce(runtime.sentOf('s'), often, T0 + 10 * MINUTE);
    expect(await runtime.store.getSchedule('s')).toMatchObject({ onNotes: true });
  });

  it('finishes a schedule whose trigger ends in the chunk of a note read while its conversion was in flight', async () => {
    // Prepare: every 10 s through T0 + 100 s. A, at T0 − 60 s, sends through T0 + 30 s, notes the chunk
    // of T0 + 40 s (readable from T0 − 40 s, the placement margin) and stalls before its conversion.
    // B, 20 s later, reads that note (the trigger ends in its chunk) and the item, still indexed, at once:
    // A's conversion lands after B's finish of the note and before B's own conversion of the item
    const runtime = notesRuntime();
    runtime.clock.set(T0 - 2 * MINUTE);
    const ending = interval(10, T0 + 100 * SECOND);
    await runtime.add('s', ending);
    const { store } = runtime;
    const convert = store.convertScheduleToNotes.bind(store);
    const finish = store.finishScheduleOnNotes.bind(store);
    const step = { reachedByA: deferred(), finishedByB: deferred(), convertedByA: deferred() };
    const conversions: boolean[] = [];
    let calls = 0;
    store.convertScheduleToNotes = async (input) => {
      const byA = calls++ === 0;
      if (byA) step.reachedByA.resolve();
      await (byA ? step.finishedByB.promise : step.convertedByA.promise);
      const outcome = await convert(input);
      conversions.push(outcome);
      if (byA) step.convertedByA.resolve();
      return outcome;
    };
    const finishes: boolean[] = [];
    store.finishScheduleOnNotes = async (input) => {
      const outcome = await finish(input);
      finishes.push(outcome);
      step.finishedByB.resolve();
      return outcome;
    };
    runtime.clock.set(T0 - 60 * SECOND);
    const a = runtime.tick();
    await step.reachedByA.promise;

    // Act
    runtime.clock.advance(20 * SECOND);
    await Promise.all([runtime.tick(), a]);
    runtime.clock.advance(MINUTE);
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    // Assess: B's finish was refused (the item was still indexed) and A's conversion applied, but B's
    // index path had read the item too and noted its chunk before its own conversion was refused: a
    // later tick read that note and finished the schedule. It reads finished, not on notes without a note
    expect(finishes).toEqual([false, true]);
    expect(conversions).toEqual([true, false]);
    const schedule = await store.getSchedule('s');
    expect(schedule).toMatchObject({ nextFireAt: null, runs: 11, lastFireAt: T0 + 100 * SECOND });
    expect(schedule?.onNotes).toBeUndefined();
    expectEveryFireOnce(runtime.sentOf('s'), ending, T0 + 10 * MINUTE);
  });
});

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve: () => resolve() };
}
