import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../lib/core/ports/job-queue';
import { createAdminApi } from '../../lib/runtime/admin/protocol/router';
import { defineTask } from '../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../lib/runtime/tasks/registry';
import { runTick } from '../../lib/runtime/tick/run-tick';
import { sqsRecord } from './support';
import { workerHarness } from './worker/harness';

const SCHEDULES = 20;
const INTERVAL_SECONDS = 5;
const MINUTES = 6;
/** The minutes measured: after the first, whose tick starts the chains' reading. */
const STEADY_FROM_MINUTE = 2;

/** `target` counting, by method, each call to it that answers later (a store call). */
function countingProxy<T extends object>(target: T, counts: Map<string, number>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const result = (value as (...values: unknown[]) => unknown).apply(object, args);
        // A call to the store is one that answers later; the rest (where a schedule's notes go) compute
        if (result instanceof Promise) counts.set(property, (counts.get(property) ?? 0) + 1);
        return result;
      };
    },
  });
}

/**
 * Interval schedules of a task without limits, run minute after minute by the tick and workers in
 * batches of 10, as deployed: the store calls (by method) and queue sends per fire of the steady
 * minutes. What docs/architecture.md ("Calls a fire makes") lists and justifies.
 */
async function callsPerFire() {
  const h = workerHarness({ echo: { handler: () => 'done' } });
  const counts = new Map<string, number>();
  const store = countingProxy(h.store, counts);
  Object.assign(h.deps, { jobStore: store, scheduleStore: store });
  let sends = 0;
  // What the queue holds, each message with when its delay ends (the recording queue ignores delays)
  const arrivals: { at: number; message: JobMessage }[] = [];
  const send = h.queue.send.bind(h.queue);
  h.queue.send = (messages) => {
    sends += 1;
    const at = h.clock.now();
    for (const message of messages) arrivals.push({ at: at + (message.delaySeconds ?? 0) * 1000, message });
    return send(messages);
  };
  const admin = createAdminApi({
    ...h.deps,
    tasks: staticTaskRegistry({ echo: { default: defineTask({ handler: () => 'done' }) } }),
    maxFiresPerPlan: h.deps.config.maxFiresPerPlan,
  });
  for (let n = 0; n < SCHEDULES; n++) {
    const response = await admin({
      action: 'add_schedule',
      id: `every-5s-${n}`,
      task: 'echo',
      trigger: { type: 'interval', seconds: INTERVAL_SECONDS },
    });
    expect(response.ok).toBe(true);
  }
  const tickState = { lastCounterRepairAt: Number.NEGATIVE_INFINITY };
  let fires = 0;
  for (let minute = 0; minute < MINUTES; minute++) {
    if (minute === STEADY_FROM_MINUTE) {
      counts.clear();
      sends = 0;
    }
    const minuteEnds = h.clock.now() + 60_000;
    await runTick(h.deps, tickState);
    h.queue.drain();
    // Each second, the messages whose delay has ended, in batches of 10
    for (let second = h.clock.now(); second < minuteEnds; second += 1_000) {
      if (h.clock.now() < second) h.clock.set(second);
      const due = arrivals.filter((arrival) => arrival.at <= second);
      arrivals.splice(0, arrivals.length, ...arrivals.filter((arrival) => arrival.at > second));
      for (let start = 0; start < due.length; start += 10) {
        const batch = due.slice(start, start + 10).map((arrival) => sqsRecord(arrival.message));
        await h.deliver(batch);
        if (minute >= STEADY_FROM_MINUTE) fires += batch.length;
      }
    }
    if (h.clock.now() < minuteEnds) h.clock.set(minuteEnds);
  }
  const minutes = MINUTES - STEADY_FROM_MINUTE;
  const sorted = [...counts].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    fires,
    /** Calls made about once per fire, per fire (the worker's). */
    perFire: Object.fromEntries(
      sorted.filter(([, n]) => n >= fires / 2).map(([name, n]) => [name, n / fires]),
    ),
    /** The other calls, per minute (the tick's, shared by every fire of the minute). */
    perMinute: Object.fromEntries(
      sorted.filter(([, n]) => n < fires / 2).map(([name, n]) => [name, n / minutes]),
    ),
    queueSendsPerMinute: sends / minutes,
  };
}

describe('the calls a fire makes on the common path', () => {
  it('are a claim, a read of its schedule and a result write per job, and shares of the tick’s batched calls', async () => {
    const { fires, perFire, perMinute, queueSendsPerMinute } = await callsPerFire();

    // The fires of the steady minutes, each delivered once; a schedule's fire at the window's edge may
    // arrive just before it (its whole-second delay) and count on either side
    const steadyFires = SCHEDULES * (MINUTES - STEADY_FROM_MINUTE) * (60 / INTERVAL_SECONDS);
    expect(fires).toBeGreaterThanOrEqual(steadyFires);
    expect(fires).toBeLessThanOrEqual(steadyFires + SCHEDULES);
    expect(perFire).toEqual({ claimJob: 1, getSchedule: 1, finishJob: 1 });
    expect(perMinute).toEqual({
      acquireDueJobs: 1,
      allTaskSlots: 13,
      findExpiredJobLeases: 1,
      leaseDueShard: 16,
      logFiresToSend: 9,
      moveNoteCursor: 16,
      readDueNotes: 16,
      readNoteCursor: 16,
      readSchedules: 9,
      releaseDueShard: 16,
      writeDueNotes: 9,
    });
    expect(queueSendsPerMinute).toBe(9);
  });
});
