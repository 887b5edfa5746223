import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0, type TestRuntime, testRuntime } from '../support';

interface Sent {
  message: JobMessage;
  sentAt: number;
  /** Messages of the same send call (what the SQS queue packs into batches of ten). */
  callSize: number;
}

/**
 * Phases on (50 ms tolerance), a sleep that moves the manual clock, and a queue that records when each
 * message was sent: its delivery is `sentAt + delaySeconds`.
 */
function phasedRuntime(overrides: Parameters<typeof testRuntime>[0] = {}) {
  const runtime = testRuntime({ sendPhaseToleranceMs: 50, ...overrides });
  const sent: Sent[] = [];
  const slept: number[] = [];
  const send = runtime.queue.send.bind(runtime.queue);
  runtime.queue.send = async (messages) => {
    for (const message of messages)
      sent.push({ message, sentAt: runtime.clock.now(), callSize: messages.length });
    return send(messages);
  };
  const tick = createTickHandler(() => runtime.deps, {
    sleep: async (ms) => {
      slept.push(ms);
      if (ms > 0) runtime.clock.advance(ms);
    },
  });
  return { runtime, sent, slept, tick };
}

async function addIntervalSchedules(runtime: TestRuntime, starts: number[], seconds = 30) {
  for (const [index, start] of starts.entries()) {
    await runtime.store.addSchedule({
      schedule: scheduleDefinition(`schedule-${index}`, {
        trigger: { type: 'interval', seconds, start_at: new Date(start).toISOString() },
      }),
      nextFireAt: start,
      conflictPolicy: 'exception',
      now: runtime.clock.now(),
    });
  }
}

const deliveryOf = ({ message, sentAt }: Sent) => sentAt + message.delaySeconds * SECOND;

describe('tick send phases', () => {
  it('sends each fire so its whole-second delay ends 10–50 ms before its run time, not up to a second early', async () => {
    // Prepare: schedules starting at spread sub-second phases; the tick runs at T0 + 0.123 s
    const { runtime, sent, tick } = phasedRuntime();
    runtime.clock.set(T0 + 123);
    await addIntervalSchedules(runtime, [T0 + 11_000, T0 + 11_250, T0 + 11_700, T0 + 12_990, T0 + 15_060]);

    // Act
    const summary = await tick();

    // Assess: every fire of the lookahead was sent, each delivered within [runAt − 50, runAt − 10]
    expect(summary.errors).toBe(0);
    expect(new Set(sent.map((entry) => entry.message.job.scheduleId)).size).toBe(5);
    expect(sent.length).toBe(summary.jobsEnqueued);
    for (const entry of sent) {
      expect(deliveryOf(entry)).toBeGreaterThanOrEqual(entry.message.job.runAt - 50);
      expect(deliveryOf(entry)).toBeLessThanOrEqual(entry.message.job.runAt - 10);
    }
  });

  it('sends fires that are already due at once, without waiting for a phase', async () => {
    // Prepare: a schedule due 2.4 s ago (coalesce latest: one missed fire) and one due in 10.5 s
    const { runtime, sent, slept, tick } = phasedRuntime();
    runtime.clock.set(T0 + 2_400);
    await addIntervalSchedules(runtime, [T0, T0 + 12_900], 60);

    // Act
    await tick();

    // Assess: the missed fire went out at the tick's start with no delay; the other at its phase
    const late = sent.find((entry) => entry.message.job.runAt === T0);
    expect(late).toMatchObject({ sentAt: T0 + 2_400, message: { delaySeconds: 0 } });
    const ahead = sent.find((entry) => entry.message.job.runAt === T0 + 12_900);
    expect(ahead && deliveryOf(ahead)).toBeGreaterThanOrEqual(T0 + 12_850);
    expect(slept.filter((ms) => ms > 0).length).toBeGreaterThan(0);
  });

  it('sends the fires of one instant together (batches stay full)', async () => {
    // Prepare: 25 schedules firing at the same instant
    const { runtime, sent, tick } = phasedRuntime();
    runtime.clock.set(T0 - 400);
    await addIntervalSchedules(runtime, Array<number>(25).fill(T0 + 10_000), 3_600);

    // Act
    await tick();

    // Assess: one send call of 25 messages, at T0 − 10 ms with 10 s of delay
    expect(sent).toHaveLength(25);
    expect(
      new Set(sent.map((entry) => `${entry.sentAt}/${entry.callSize}/${entry.message.delaySeconds}`)),
    ).toEqual(new Set([`${T0 - 10}/25/10`]));
  });

  it('stops waiting for phases once a quarter of the tick budget has passed, and sends the rest at once', async () => {
    // Prepare: 40 schedules at spread phases, read 4 per round (10 rounds), a 2 s budget (0.5 s of waiting)
    const { runtime, sent, slept, tick } = phasedRuntime({ acquireBatchSize: 4, tickBudgetMs: 2_000 });
    runtime.clock.set(T0);
    await addIntervalSchedules(
      runtime,
      Array.from({ length: 40 }, (_, n) => T0 + 20_000 + n * 997),
      3_600,
    );

    // Act
    const summary = await tick();

    // Assess: every schedule was dispatched; waiting stopped after the budget's share (+ one round)
    expect(summary.schedulesProcessed).toBe(40);
    const waited = slept.filter((ms) => ms > 0).reduce((sum, ms) => sum + ms, 0);
    expect(waited).toBeLessThan(500 + SECOND);
    const inWindow = sent.filter((entry) => deliveryOf(entry) >= entry.message.job.runAt - 50);
    const sentAtOnce = sent.filter((entry) => deliveryOf(entry) < entry.message.job.runAt - 50);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(sentAtOnce.length).toBeGreaterThan(0);
    for (const entry of sentAtOnce)
      expect(entry.message.delaySeconds).toBe(Math.floor((entry.message.job.runAt - entry.sentAt) / SECOND));
  });

  it('sends a round at once when its schedules fire within 5 s: waiting would hold back the next round', async () => {
    // Prepare: schedules firing 1–4 s after the tick (a tick catching up, or a burst just added)
    const { runtime, sent, slept, tick } = phasedRuntime();
    runtime.clock.set(T0 + 123);
    await addIntervalSchedules(runtime, [T0 + 1_000, T0 + 2_500, T0 + 4_000], 3_600);

    // Act
    await tick();

    // Assess: no wait; each sent at the tick's start with the floor of its delay
    expect(slept).toEqual([]);
    expect(sent.map((entry) => [entry.sentAt, entry.message.delaySeconds])).toEqual([
      [T0 + 123, 0],
      [T0 + 123, 2],
      [T0 + 123, 3],
    ]);
  });

  it('with SUNDIAL_SEND_PHASE_TOLERANCE_MS=0 sends at once, the sub-second rest left to the worker', async () => {
    const { runtime, sent, slept, tick } = phasedRuntime({ sendPhaseToleranceMs: 0 });
    runtime.clock.set(T0 + 123);
    await addIntervalSchedules(runtime, [T0 + 1_900]);

    await tick();

    expect(slept).toEqual([]);
    expect(sent[0]).toMatchObject({ sentAt: T0 + 123, message: { delaySeconds: 1 } });
  });
});
