import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { SECOND, T0 } from '../support';
import { expectEveryFireOnce, interval, MINUTE, notesRuntime } from './notes-harness';

const often = interval(10);

/** A runtime whose two schedules every 10 s (in one due shard) are on notes from T0 + 3 min. */
async function converted() {
  const runtime = notesRuntime();
  const shard = (id: string) => shardOf(id, runtime.store.dueShards);
  const ids: string[] = [];
  for (let n = 0; ids.length < 2; n++) if (shard(`s-${n}`) === 0) ids.push(`s-${n}`);
  runtime.clock.set(T0 - 2 * MINUTE);
  for (const id of ids) await runtime.add(id, often);
  await runtime.tickEveryMinuteUntil(T0 + 3 * MINUTE);
  for (const id of ids) expect(await runtime.store.getSchedule(id)).toMatchObject({ onNotes: true });
  return { runtime, ids: ids as [string, string] };
}

/**
 * Makes the store's next call of `method` throw (a crash at that point of the tick); of the cursor moves,
 * only one of shard 0 (the other calls only concern shard 0, the only one with notes).
 */
function failOnce<K extends 'writeDueNotes' | 'moveNoteCursor' | 'readSchedules'>(
  store: ReturnType<typeof notesRuntime>['store'],
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

describe('due notes: a tick that fails part way redoes its bucket (ADR 0007)', () => {
  for (const [method, point] of [
    ['writeDueNotes', 'between the send and the successor notes'],
    ['moveNoteCursor', 'between the successor notes and the cursor'],
    ['readSchedules', 'reading the schedules of a page'],
  ] as const) {
    it(`loses no fire and sends none outside the trigger when it fails ${point}`, async () => {
      const { runtime, ids } = await converted();
      const cursorBefore = (await runtime.store.readNoteCursor(0)) as number;
      const due = (await runtime.allNotes(runtime.clock.now())).map((note) => note.bucket);
      const firstDue = Math.min(...due.filter((bucket) => bucket > cursorBefore));
      const fault = failOnce(runtime.store, method);

      const failing = await runtime.tick();
      const cursorAfterFailure = await runtime.store.readNoteCursor(0);
      runtime.clock.advance(MINUTE);
      await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE);

      expect(fault.failed()).toBe(true);
      expect(failing.errors + (failing.notes?.bucketsHeld ?? 0)).toBeGreaterThan(0);
      // The cursor stayed before the bucket whose notes failed: the next tick redoes it
      expect(cursorAfterFailure).toBeLessThan(firstDue);
      for (const id of ids) expectEveryFireOnce(runtime.sentOf(id), often, T0 + 15 * MINUTE);
      expect(runtime.summaries.slice(-5).every((s) => s.errors === 0)).toBe(true);
    });
  }

  it('retries a schedule whose send failed on its own, and moves its shard on', async () => {
    const { runtime, ids } = await converted();
    const [failing, fine] = ids;
    let failures = 0;
    runtime.queue.failWhen = (message) => {
      if (message.job.scheduleId !== failing || failures > 0) return false;
      failures += 1;
      return true;
    };

    const tick = await runtime.tick();
    const sentByFailingTick = runtime.sent.filter((s) => s.at === runtime.clock.now());
    runtime.queue.failWhen = () => false;
    runtime.clock.advance(MINUTE);
    await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE);

    expect(tick.sendFailures).toBe(1);
    expect(tick.notes).toMatchObject({ bucketsHeld: 0, notesRetried: 1 });
    expect(sentByFailingTick.some((s) => s.message.job.scheduleId === fine)).toBe(true);
    expectEveryFireOnce(runtime.sentOf(failing), often, T0 + 15 * MINUTE);
    expectEveryFireOnce(runtime.sentOf(fine), often, T0 + 15 * MINUTE);
  });

  it('keeps sending the rest of a shard once each while one schedule in it fails every tick', async () => {
    const { runtime, ids } = await converted();
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
    expect(runtime.summaries.every((summary) => (summary.notes?.bucketsHeld ?? 0) === 0)).toBe(true);
  });

  it('keeps every fire through two overlapping ticks a minute for a while; afterwards each fire is sent once', async () => {
    const { runtime, ids } = await converted();

    while (runtime.clock.now() <= T0 + 20 * MINUTE) {
      await runtime.ticks(2);
      runtime.clock.advance(MINUTE);
    }
    const overlapEnded = runtime.clock.now();
    await runtime.tickEveryMinuteUntil(T0 + 50 * MINUTE);

    for (const id of ids) {
      expectEveryFireOnce(runtime.sentOf(id), often, T0 + 50 * MINUTE);
      const later = runtime.sentOf(id).filter((s) => s.at > overlapEnded + 5 * MINUTE);
      const jobIds = later.map((s) => s.message.job.id);
      expect(jobIds.length).toBeGreaterThan(100);
      expect(jobIds.length).toBe(new Set(jobIds).size);
    }
    expect(runtime.summaries.every((s) => s.errors === 0)).toBe(true);
  });

  it('keeps every fire when a tick sending late (30 s behind) overlaps the next one', async () => {
    const { runtime, ids } = await converted();
    const send = runtime.queue.send.bind(runtime.queue);
    let release: () => void = () => {};
    let blocked: () => void = () => {};
    const hitGate = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    let gated = false;
    runtime.queue.send = async (messages) => {
      if (!gated) {
        gated = true;
        blocked();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      return send(messages);
    };

    // Act: A plans and stalls at its send; B, 30 s later, reads the same notes and finishes; then A sends
    const a = runtime.tick();
    await hitGate;
    runtime.clock.advance(30 * SECOND);
    await runtime.tick();
    release();
    await a;
    runtime.clock.advance(30 * SECOND);
    await runtime.tickEveryMinuteUntil(T0 + 20 * MINUTE);

    for (const id of ids) expectEveryFireOnce(runtime.sentOf(id), often, T0 + 20 * MINUTE);
    expect(runtime.summaries.every((s) => s.errors === 0)).toBe(true);
  });

  it('ends a dispatch whose index rounds fail only once its note reads have ended', async () => {
    const { runtime } = await converted();
    const readNotes = runtime.store.readDueNotes.bind(runtime.store);
    let readsInFlight = 0;
    runtime.store.readDueNotes = async (input) => {
      readsInFlight += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      readsInFlight -= 1;
      return readNotes(input);
    };
    runtime.store.readDueSchedules = async () => {
      throw new Error('index unavailable');
    };

    const summary = await runtime.tick();

    expect(summary.errors).toBe(1);
    expect(readsInFlight).toBe(0);
    // The notes were dispatched and every cursor moved before the tick returned
    for (let shard = 0; shard < runtime.store.dueShards; shard++) {
      expect(await runtime.store.readNoteCursor(shard)).toBe(Math.floor(runtime.clock.now() / 10_000));
    }
  });
});
