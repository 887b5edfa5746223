import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { DEFAULT_NOTE_GRID, scheduleGrid } from '../../../lib/core/planning/note-chunks';
import { T0 } from '../support';
import {
  type DispatchRuntime,
  dispatchRuntime,
  expectEveryFireOnce,
  interval,
  MINUTE,
} from './dispatch-harness';

const often = interval(10);

/**
 * A runtime whose two schedules every 10 s (in due shard 0, their chunks at the same phase, so one tick
 * reads both notes) have run on their chains since T0 − 5 min.
 */
async function running() {
  const runtime = dispatchRuntime();
  const ids: string[] = [];
  const inShardZeroAtPhaseZero = (id: string) =>
    shardOf(id, runtime.store.dueShards) === 0 && scheduleGrid(DEFAULT_NOTE_GRID, id).phaseMs === 0;
  for (let n = 0; ids.length < 2; n++) if (inShardZeroAtPhaseZero(`s-${n}`)) ids.push(`s-${n}`);
  runtime.clock.set(T0 - 5 * MINUTE);
  for (const id of ids) await runtime.add(id, often);
  await runtime.tickEveryMinuteUntil(T0 + 3 * MINUTE);
  return { runtime, ids: ids as [string, string] };
}

/**
 * Makes the store's next call of `method` throw (the process dies at that point of the dispatch); of the
 * cursor moves, only one of shard 0 (the other calls only concern shard 0, the only one with notes).
 */
function failOnce<K extends 'writeDueNotes' | 'moveNoteCursor' | 'readSchedules'>(
  store: DispatchRuntime['store'],
  method: K,
): { failed: () => boolean } {
  const original = store[method].bind(store);
  let failed = false;
  (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    if (!failed && (method !== 'moveNoteCursor' || args[0] === 0)) {
      failed = true;
      throw new Error(`process died in ${method}`);
    }
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  return { failed: () => failed };
}

describe('a dispatch that fails part way redoes its bucket (ADR 0007)', () => {
  for (const [method, point] of [
    ['writeDueNotes', 'between the send and the successor notes'],
    ['moveNoteCursor', 'between the successor notes and the cursor'],
    ['readSchedules', 'reading the schedules of a page'],
  ] as const) {
    it(`loses no fire and sends none outside the trigger when it fails ${point}`, async () => {
      // Prepare
      const { runtime, ids } = await running();
      const cursorBefore = (await runtime.store.readNoteCursor(0)) as number;
      const due = (await runtime.allNotes(runtime.clock.now())).map((note) => note.bucket);
      const firstDue = Math.min(...due.filter((bucket) => bucket > cursorBefore));
      const fault = failOnce(runtime.store, method);

      // Act
      const failing = await runtime.tick();
      const cursorAfterFailure = await runtime.store.readNoteCursor(0);
      runtime.clock.set(T0 + 5 * MINUTE);
      await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE);

      // Assess: the cursor stayed before the bucket whose notes failed; the next tick redid it
      expect(fault.failed()).toBe(true);
      expect(failing.errors + failing.notes.bucketsHeld).toBeGreaterThan(0);
      expect(cursorAfterFailure).toBeLessThan(firstDue);
      for (const id of ids) expectEveryFireOnce(runtime.sentOf(id), often, T0 + 15 * MINUTE);
      expect(runtime.summaries.slice(-5).every((s) => s.errors === 0)).toBe(true);
    });
  }

  it('retries a schedule whose send failed on its own, and moves its shard on', async () => {
    const { runtime, ids } = await running();
    const [failing, fine] = ids;
    let failures = 0;
    runtime.queue.failWhen = (message) => {
      if (message.job.scheduleId !== failing || failures > 0) return false;
      failures += 1;
      return true;
    };

    const tick = await runtime.tick();
    const sentByFailingTick = runtime.sent.filter((s) => s.at >= T0 + 4 * MINUTE);
    runtime.queue.failWhen = () => false;
    runtime.clock.set(T0 + 5 * MINUTE);
    await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE);

    expect(tick.sendFailures).toBeGreaterThan(0);
    expect(tick.notes).toMatchObject({ bucketsHeld: 0, notesRetried: 1 });
    expect(sentByFailingTick.some((s) => s.message.job.scheduleId === fine)).toBe(true);
    expectEveryFireOnce(runtime.sentOf(failing), often, T0 + 15 * MINUTE);
    expectEveryFireOnce(runtime.sentOf(fine), often, T0 + 15 * MINUTE);
  });

  it('keeps sending the rest of a shard once each while one schedule in it fails every tick', async () => {
    const { runtime, ids } = await running();
    const [failing, fine] = ids;
    runtime.queue.failWhen = (message) => message.job.scheduleId === failing;

    await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE);
    runtime.queue.failWhen = () => false;
    await runtime.tickEveryMinuteUntil(T0 + 25 * MINUTE);

    // Holding the shard's cursor behind the failing schedule would send its later notes again every tick
    const fineIds = runtime.sentOf(fine).map((s) => s.message.job.id);
    expect(fineIds.length).toBe(new Set(fineIds).size);
    expectEveryFireOnce(runtime.sentOf(fine), often, T0 + 25 * MINUTE);
    expectEveryFireOnce(runtime.sentOf(failing), often, T0 + 25 * MINUTE);
    expect(runtime.summaries.every((summary) => summary.notes.bucketsHeld === 0)).toBe(true);
  });
});
