import { expect } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import type { JobStore } from '../../../lib/core/ports/job-store';
import type { ScheduleStore } from '../../../lib/core/ports/schedule-store';
import type { RuntimeConfig } from '../../../lib/runtime/config';
import {
  type DispatchRuntime,
  dispatchRuntime,
  expectSentOnceEach,
  fireTimes,
  interval,
  MINUTE,
  ranOnceEach,
  type Sent,
} from '../dispatch/dispatch-harness';
import { idAtPhase, SECOND, T0 } from '../support';

/** Where the first dispatcher is stuck, past its shard lease, while the next tick reads the same note. */
export const STUCK_AT = [
  'before its send',
  'between its send and its successor note',
  'before its cursor move',
] as const;
export type StuckAt = (typeof STUCK_AT)[number];

const EVERY_30S = interval(30);
/** The schedule: its chunks start at the grid's boundaries (T0 is one), so the note both readers read is known. */
const ID = idAtPhase('every-30s');

/**
 * ADR 0007's overlapping readers on one shard, as ADR 0008 runs them: tick A's dispatcher reads a note
 * and is stuck at `stuckAt` past its shard lease; the tick a minute later (B) leases the shard, reads the
 * same note (the cursor did not move) and dispatches it; then A goes on. A schedule every 30 s from T0
 * (coalesce `latest`), added through the admin API at T0 − 5 min: both read its first note on time
 * (from T0 − 150 s), and plan the same fires. Every fire is sent, none outside the trigger, and each
 * runs once; after the overlap each fire is sent once (the two chains are one).
 */
export async function overlappingOnTimeScenario(
  store: ScheduleStore & JobStore,
  stuckAt: StuckAt,
  config: Partial<RuntimeConfig> = {},
): Promise<void> {
  const runtime = dispatchRuntime(config, { scheduleStore: store, jobStore: store });
  runtime.clock.set(T0 - 5 * MINUTE);
  await runtime.add(ID, EVERY_30S, { coalesce: 'latest' });

  const { byA, byB } = await overlap(runtime, stuckAt, T0 - 150 * SECOND, T0 - 90 * SECOND);
  await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE, (at) => runtime.deliverDue(at));
  await runtime.deliverDue(T0 + 10 * MINUTE);

  const chunk = fireTimes(EVERY_30S, T0, T0 + 90 * SECOND);
  expect(fireTimesOf(byB)).toEqual(chunk);
  expect(fireTimesOf(byA)).toEqual(stuckAt === 'before its send' ? chunk : []);
  expect(ranOnceEach(runtime.runs)).toEqual({
    times: fireTimes(EVERY_30S, T0, T0 + 10 * MINUTE),
    once: true,
  });
  expectSentOnceEach(runtime.sent.filter((s) => s.by === 'tick' && s.at >= T0));
}

/**
 * The same overlap over missed fires (ADR 0005's counterexample, on notes): an admin call wrote the
 * schedule and its first note at T0 − 20 s and died. A reads that note at T0 + 40 s and coalesces T0 and
 * T0 + 30 s into T0 + 30 s; B, stuck A's lease run out, reads it at T0 + 100 s and coalesces T0 … T0 + 90 s
 * into T0 + 90 s. They picked different latest fires, yet together they send what A and a reader of A's
 * successor at B's time send in sequence: T0 + 30 s on, T0 coalesced away by both; each runs once.
 */
export async function overlappingMissedScenario(
  store: ScheduleStore & JobStore,
  stuckAt: StuckAt,
  config: Partial<RuntimeConfig> = {},
): Promise<void> {
  const runtime = dispatchRuntime(config, { scheduleStore: store, jobStore: store });
  runtime.clock.set(T0 - 20 * SECOND);
  await runtime.addAndDie(ID, EVERY_30S, { coalesce: 'latest' });

  const { byA, byB } = await overlap(runtime, stuckAt, T0 + 40 * SECOND, T0 + 100 * SECOND);
  await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE, (at) => runtime.deliverDue(at));
  await runtime.deliverDue(T0 + 10 * MINUTE);

  // A: T0 + 30 s, then chunk by chunk until its successor can be placed (T0 + 240 s); B: T0 + 90 s on
  const aPlans = fireTimes(EVERY_30S, T0 + 30 * SECOND, T0 + 210 * SECOND);
  expect(fireTimesOf(byA)).toEqual(stuckAt === 'before its send' ? aPlans : []);
  expect(fireTimesOf(byB)).toEqual(fireTimes(EVERY_30S, T0 + 90 * SECOND, T0 + 330 * SECOND));
  const ran = ranOnceEach(runtime.runs);
  expect(ran).toEqual({ times: fireTimes(EVERY_30S, T0 + 30 * SECOND, T0 + 10 * MINUTE), once: true });
  // Once the chains met, each fire is sent once
  expectSentOnceEach(runtime.sent.filter((s) => s.by === 'tick' && s.at >= T0 + 4 * MINUTE));
}

/**
 * Runs tick A at `aAt` until its dispatcher of the schedule's shard is stuck at `stuckAt`, then tick B at
 * `bAt` (after A's shard lease ran out) to its end, then lets A go on. What each sent for the schedule:
 * A's messages are those sent after B ended.
 */
async function overlap(
  runtime: DispatchRuntime,
  stuckAt: StuckAt,
  aAt: EpochMs,
  bAt: EpochMs,
): Promise<{ byA: Sent[]; byB: Sent[] }> {
  const store = runtime.deps.scheduleStore;
  const shard = store.noteShardOf(ID);
  const stuck = stuckOnce();
  const send = runtime.queue.send;
  const writeDueNotes = store.writeDueNotes.bind(store);
  const moveNoteCursor = store.moveNoteCursor.bind(store);
  runtime.queue.send = async (messages) => {
    if (stuckAt === 'before its send' && messages.some((m) => m.job.scheduleId === ID)) await stuck.here();
    return send(messages);
  };
  store.writeDueNotes = async (input) => {
    if (stuckAt === 'between its send and its successor note') await stuck.here();
    return writeDueNotes(input);
  };
  store.moveNoteCursor = async (toShard, toBucket) => {
    if (stuckAt === 'before its cursor move' && toShard === shard) await stuck.here();
    return moveNoteCursor(toShard, toBucket);
  };
  runtime.clock.set(aAt);
  const a = runtime.tick();
  await Promise.race([stuck.reached, a]);
  expect(stuck.isStuck()).toBe(true);
  const sentBeforeB = runtime.sent.length;
  expect(bAt).toBeGreaterThan(aAt + runtime.deps.config.tickBudgetMs + 10 * SECOND);
  runtime.clock.set(bAt);
  const b = await runtime.tick();
  expect(b.errors).toBe(0);
  const sentBeforeA = runtime.sent.length;
  stuck.release();
  await a;
  const ofSchedule = (list: Sent[]) => list.filter((s) => s.message.job.scheduleId === ID);
  return {
    byB: ofSchedule(runtime.sent.slice(sentBeforeB, sentBeforeA)),
    byA: ofSchedule(runtime.sent.slice(sentBeforeA)),
  };
}

/** A place a dispatcher gets stuck at once (the first caller), until `release`. */
function stuckOnce() {
  let reachedIt: () => void = () => {};
  let releaseIt: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    reachedIt = resolve;
  });
  const released = new Promise<void>((resolve) => {
    releaseIt = resolve;
  });
  let state: 'free' | 'stuck' | 'done' = 'free';
  return {
    reached,
    isStuck: () => state === 'stuck',
    release: () => {
      state = 'done';
      releaseIt();
    },
    async here() {
      if (state !== 'free') return;
      state = 'stuck';
      reachedIt();
      await released;
    },
  };
}

function fireTimesOf(sent: readonly Sent[]): number[] {
  return sent.map((s) => s.message.job.fireTime ?? -1).sort((x, y) => x - y);
}
