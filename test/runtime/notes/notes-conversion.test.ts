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
});
