import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import type { TriggerSpec } from '../../../lib/core/triggers';
import type { RuntimeConfig } from '../../../lib/runtime/config';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { dispatchRuntime, MINUTE, type Sent } from '../dispatch/dispatch-harness';
import { SECOND, T0 } from '../support';

/**
 * The deployed send phases (50 ms tolerance), a tick whose waits move the manual clock (recorded in
 * `slept`), and a send call counter: a message's delivery is `at + delaySeconds`.
 */
function phasedRuntime(config: Partial<RuntimeConfig> = {}, sendMs = 0) {
  const runtime = dispatchRuntime(config);
  const slept: number[] = [];
  const sendCalls: number[] = [];
  const send = runtime.queue.send.bind(runtime.queue);
  runtime.queue.send = async (messages) => {
    sendCalls.push(messages.length);
    if (sendMs > 0) await runtime.sleep(sendMs);
    return send(messages);
  };
  runtime.deps.sleep = (ms) => {
    slept.push(ms);
    return runtime.sleep(ms);
  };
  const tick = createTickHandler(() => runtime.deps);
  return { runtime, slept, sendCalls, tick };
}

/** Schedules first firing at `starts` (then every `seconds`), added through the admin API 20 minutes before T0. */
async function addSchedules(
  runtime: ReturnType<typeof dispatchRuntime>,
  starts: number[],
  seconds = 3_600,
  ids: string[] = starts.map((_, index) => `schedule-${index}`),
) {
  runtime.clock.set(T0 - 20 * MINUTE);
  for (const [index, start] of starts.entries()) {
    const trigger = { type: 'interval', seconds, start_at: new Date(start).toISOString() } as TriggerSpec;
    await runtime.add(ids[index] as string, trigger, { coalesce: 'latest' });
  }
}

/** `count` schedule ids of due shard 0. */
function idsOfShardZero(count: number): string[] {
  const ids: string[] = [];
  for (let n = 0; ids.length < count; n++) if (shardOf(`s-${n}`, 16) === 0) ids.push(`s-${n}`);
  return ids;
}

const deliveryOf = ({ message, at }: Sent) => at + message.delaySeconds * SECOND;

describe('tick send phases', () => {
  it('sends each fire so its whole-second delay ends 10–50 ms before its run time, not up to a second early', async () => {
    // Prepare: schedules every 30 s from spread sub-second phases; the tick runs at T0 + 0.123 s
    const { runtime, tick } = phasedRuntime();
    await addSchedules(runtime, [T0 + 11_000, T0 + 11_250, T0 + 11_700, T0 + 12_990, T0 + 15_060], 30);
    runtime.clock.set(T0 + 123);

    // Act
    const summary = await tick();

    // Assess: every fire of their notes was sent, each delivered within [runAt − 50, runAt − 10]
    expect(summary.errors).toBe(0);
    expect(new Set(runtime.sent.map((s) => s.message.job.scheduleId)).size).toBe(5);
    expect(runtime.sent.length).toBe(summary.jobsEnqueued);
    for (const entry of runtime.sent) {
      expect(deliveryOf(entry)).toBeGreaterThanOrEqual(entry.message.job.runAt - 50);
      expect(deliveryOf(entry)).toBeLessThanOrEqual(entry.message.job.runAt - 10);
    }
  });

  it('sends as much earlier as its last sends took to reach the queue, so a slow queue does not make fires late', async () => {
    // Prepare: every send takes 200 ms to reach the queue; schedules firing in 11–16 s at spread
    // phases, and others half an hour later at the same phases
    const { runtime, tick } = phasedRuntime({}, 200);
    const phases = [11_000, 11_250, 11_700, 12_990, 15_060];
    await addSchedules(
      runtime,
      [...phases.map((ms) => T0 + ms), ...phases.map((ms) => T0 + 1_800_000 + ms)],
      3_600,
    );

    // Act: the first tick, before any send was timed, then a tick every minute
    for (let at = T0 + 123; at < T0 + 1_800_000; at += MINUTE) {
      runtime.clock.set(Math.max(at, runtime.clock.now()));
      await tick();
    }

    // Assess: the first tick's fires reached the queue up to 200 ms late (after their run time);
    // the later ones, sent 200 ms earlier, within [runAt − 50, runAt − 10] of it
    const firstTick = runtime.sent.filter((entry) => entry.message.job.runAt < T0 + 1_800_000);
    const later = runtime.sent.filter((entry) => entry.message.job.runAt >= T0 + 1_800_000);
    expect(firstTick.length).toBe(5);
    expect(later.length).toBe(5);
    for (const entry of firstTick) expect(deliveryOf(entry)).toBeGreaterThan(entry.message.job.runAt);
    for (const entry of later) {
      expect(deliveryOf(entry)).toBeGreaterThanOrEqual(entry.message.job.runAt - 50);
      expect(deliveryOf(entry)).toBeLessThanOrEqual(entry.message.job.runAt - 10);
    }
  });

  it('sends fires that are already due at once, without waiting for a phase', async () => {
    // Prepare: a schedule due 2.4 s ago (its note read late) and one due in 10.5 s
    const { runtime, slept, tick } = phasedRuntime();
    await addSchedules(runtime, [T0, T0 + 12_900]);
    runtime.clock.set(T0 + 2_400);

    // Act
    await tick();

    // Assess: the missed fire went out at the tick's start with no delay; the other at its phase
    const late = runtime.sent.find((entry) => entry.message.job.runAt === T0);
    expect(late).toMatchObject({ at: T0 + 2_400, message: { delaySeconds: 0 } });
    const ahead = runtime.sent.find((entry) => entry.message.job.runAt === T0 + 12_900);
    expect(ahead && deliveryOf(ahead)).toBeGreaterThanOrEqual(T0 + 12_850);
    expect(slept.filter((ms) => ms > 0).length).toBeGreaterThan(0);
  });

  it('sends the fires of one instant on a page together (batches stay full)', async () => {
    // Prepare: 20 schedules of one shard firing at the same instant: one page of notes
    const { runtime, sendCalls, tick } = phasedRuntime();
    await addSchedules(runtime, Array<number>(20).fill(T0 + 10_000), 3_600, idsOfShardZero(20));
    runtime.clock.set(T0 - 400);

    // Act
    await tick();

    // Assess: one send call of 20 messages, at T0 − 10 ms with 10 s of delay
    expect(sendCalls).toEqual([20]);
    expect(new Set(runtime.sent.map((entry) => `${entry.at}/${entry.message.delaySeconds}`))).toEqual(
      new Set([`${T0 - 10}/10`]),
    );
  });

  it('stops waiting for phases once a quarter of the dispatch budget has passed, and sends the rest at once', async () => {
    // Prepare: 60 schedules of one shard at spread phases, read 20 notes a page (3 pages); a 2 s budget
    // (0.5 s of waiting)
    const { runtime, slept, tick } = phasedRuntime({ tickBudgetMs: 2_000 });
    await addSchedules(
      runtime,
      Array.from({ length: 60 }, (_, n) => T0 + 20_000 + n * 997),
      3_600,
      idsOfShardZero(60),
    );
    runtime.clock.set(T0);

    // Act
    const summary = await tick();

    // Assess: every schedule was dispatched; waiting stopped after the budget's share (+ one page)
    expect(summary.schedulesProcessed).toBe(60);
    const waited = slept.filter((ms) => ms > 0).reduce((sum, ms) => sum + ms, 0);
    expect(waited).toBeLessThan(500 + SECOND);
    const inWindow = runtime.sent.filter((entry) => deliveryOf(entry) >= entry.message.job.runAt - 50);
    const sentAtOnce = runtime.sent.filter((entry) => deliveryOf(entry) < entry.message.job.runAt - 50);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(sentAtOnce.length).toBeGreaterThan(0);
    for (const entry of sentAtOnce) {
      expect(entry.message.delaySeconds).toBe(Math.floor((entry.message.job.runAt - entry.at) / SECOND));
    }
  });

  it('sends a page at once when its schedules fire within 5 s: waiting would hold back the next page', async () => {
    // Prepare: schedules firing 1–4 s after the tick (a tick catching up)
    const { runtime, slept, tick } = phasedRuntime();
    await addSchedules(runtime, [T0 + 1_000, T0 + 2_500, T0 + 4_000]);
    runtime.clock.set(T0 + 123);

    // Act
    await tick();

    // Assess: no wait; each sent at the tick's start with the floor of its delay
    expect(slept).toEqual([]);
    expect(runtime.sent.map((entry) => [entry.at, entry.message.delaySeconds]).sort()).toEqual([
      [T0 + 123, 0],
      [T0 + 123, 2],
      [T0 + 123, 3],
    ]);
  });

  it('with SUNDIAL_SEND_PHASE_TOLERANCE_MS=0 sends at once, the sub-second rest left to the worker', async () => {
    const { runtime, slept, tick } = phasedRuntime({ sendPhaseToleranceMs: 0 });
    await addSchedules(runtime, [T0 + 11_900], 30);
    runtime.clock.set(T0 + 123);

    await tick();

    expect(slept).toEqual([]);
    expect(runtime.sent[0]).toMatchObject({ at: T0 + 123, message: { delaySeconds: 11 } });
  });
});
