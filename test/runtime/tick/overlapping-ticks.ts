import { expect } from 'vitest';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { JobStore } from '../../../lib/core/ports/job-store';
import type { AdvanceOutcome, ScheduleStore } from '../../../lib/core/ports/schedule-store';
import { createLogger } from '../../../lib/runtime/observability/logger';
import type { DispatchDeps } from '../../../lib/runtime/scheduling/dispatch';
import { dispatchDueSchedules } from '../../../lib/runtime/tick/dispatch-due';
import { SECOND, scheduleDefinition, sqsRecord, T0 } from '../support';
import { fireCountingWorker } from './fire-counting-worker';

/** Resolves once `count` callers have arrived. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived === count) open();
    return opened;
  };
}

/**
 * Two lease-less ticks (A at T0 - 60 s, B at T0 - 20 s) over `store` read the same state of a schedule
 * firing every 30 s from T0, both send their plans, then both try to move it on: A first. One advances,
 * the other's write is refused; every fire either tick planned was sent, and each runs once.
 */
export async function overlappingTicksScenario(store: ScheduleStore & JobStore): Promise<void> {
  const { worker, runs } = await everyThirtySeconds(store);
  // A (planned to T0 + 60 s) writes first, then B (planned to T0 + 90 s)
  const race = interleave(store, T0 + 60 * SECOND);
  const tick = ticker(race.store, worker.queue);

  const { a, b, sentByBoth, afterRace, next, sentByNext } = await raceThenNext(store, worker, tick, {
    a: T0 - 60 * SECOND,
    b: T0 - 20 * SECOND,
    next: T0 + 10 * SECOND,
    deliverAt: T0 + 200 * SECOND,
  });

  expect(race.outcomes).toEqual(['advanced', 'lost', 'advanced']);
  expect([a.leasesLost, b.leasesLost]).toEqual([0, 1]);
  expect(fireTimes(sentByBoth)).toEqual([T0, T0, T0 + 30 * SECOND, T0 + 30 * SECOND, T0 + 60 * SECOND]);
  expect(afterRace).toMatchObject({ nextFireAt: T0 + 60 * SECOND, lastFireAt: T0 + 30 * SECOND, version: 1 });
  expect(next).toMatchObject({ leasesLost: 0, errors: 0 });
  // The fire B sent beyond A's window is sent again, under the same id, by the next tick
  expect(fireTimes(sentByNext)).toEqual([T0 + 60 * SECOND, T0 + 90 * SECOND]);
  expect([...runs.keys()].sort((x, y) => x - y)).toEqual([0, 30, 60, 90].map((s) => T0 + s * SECOND));
  expect([...runs.values()].every((count) => count === 1)).toBe(true);
}

/**
 * Two lease-less ticks over missed fires (ADR 0005): a schedule firing every 30 s from T0 (coalesce
 * `latest`, no cap on runs) still due at T0. A at T0 + 40 s coalesces T0 and T0 + 30 s into T0 + 30 s
 * and sends up to T0 + 130 s; B at T0 + 65 s coalesces into T0 + 60 s and sends up to T0 + 155 s. They
 * picked different latest fires, yet the union is what the two ticks in sequence send: `first` moves
 * the schedule on, the other's write is refused, and a next tick at T0 + 100 s continues from there.
 */
export async function overlappingMissedTicksScenario(
  store: ScheduleStore & JobStore,
  first: 'A' | 'B',
): Promise<void> {
  const { worker, runs } = await everyThirtySeconds(store);
  const endOf = { A: T0 + 150 * SECOND, B: T0 + 180 * SECOND };
  const race = interleave(store, endOf[first]);
  const tick = ticker(race.store, worker.queue);

  const { a, b, sentByBoth, afterRace, next, sentByNext } = await raceThenNext(store, worker, tick, {
    a: T0 + 40 * SECOND,
    b: T0 + 65 * SECOND,
    next: T0 + 100 * SECOND,
    deliverAt: T0 + 300 * SECOND,
  });

  expect(race.outcomes).toEqual(['advanced', 'lost', 'advanced']);
  expect([a.leasesLost, b.leasesLost]).toEqual(first === 'A' ? [0, 1] : [1, 0]);
  expect(fireTimes(sentByBoth)).toEqual([30, 60, 60, 90, 90, 120, 120, 150].map((s) => T0 + s * SECOND));
  expect(afterRace).toMatchObject({ nextFireAt: endOf[first], version: 1 });
  expect(next).toMatchObject({ leasesLost: 0, errors: 0 });
  // From A's end the next tick sends again the fire B sent past it; from B's it goes on
  expect(fireTimes(sentByNext)).toEqual(
    first === 'A' ? [T0 + 150 * SECOND, T0 + 180 * SECOND] : [T0 + 180 * SECOND],
  );
  // T0 was coalesced by both; every other fire runs once: what A, B and the next tick in sequence run
  expect([...runs.keys()].sort((x, y) => x - y)).toEqual(
    [30, 60, 90, 120, 150, 180].map((s) => T0 + s * SECOND),
  );
  expect([...runs.values()].every((count) => count === 1)).toBe(true);
}

/**
 * `store` with the first two reads held until both ticks have read, and the first two advances held
 * until both ticks have sent: the one moving the schedule to `firstNextFireAt` writes first.
 */
function interleave(
  store: ScheduleStore,
  firstNextFireAt: number,
): { store: ScheduleStore; outcomes: AdvanceOutcome[] } {
  const bothRead = barrier(2);
  const bothSent = barrier(2);
  const outcomes: AdvanceOutcome[] = [];
  let writes = 0;
  let reads = 0;
  const interleaved: ScheduleStore = Object.create(store, {
    readDueSchedules: {
      value: async (input: Parameters<ScheduleStore['readDueSchedules']>[0]) => {
        const read = await store.readDueSchedules(input);
        if (++reads <= 2) await bothRead();
        return read;
      },
    },
    advanceSchedule: {
      value: async (input: Parameters<ScheduleStore['advanceSchedule']>[0]) => {
        if (outcomes.length < 2) {
          await bothSent();
          if (input.nextFireAt !== firstNextFireAt) await until(() => writes === 1);
        }
        const outcome = await store.advanceSchedule(input);
        writes += 1;
        outcomes.push(outcome);
        return outcome;
      },
    },
  });
  return { store: interleaved, outcomes };
}

/** A tick over `scheduleStore` at a given instant (90 s lookahead, no cap per plan). */
function ticker(scheduleStore: ScheduleStore, queue: DispatchDeps['queue']) {
  return (now: number) => {
    const deps: DispatchDeps = {
      scheduleStore,
      queue,
      clock: { now: () => now },
      random: () => 0.5,
      limits: { lookaheadMs: 90 * SECOND, maxFiresPerPlan: 1000 },
    };
    return dispatchDueSchedules(deps, {
      owner: `tick@${now}`,
      stopAcquiringAt: now + 60 * SECOND,
      leaseMs: 60 * SECOND,
      batchSize: 10,
      concurrency: 4,
      logger: createLogger({ level: 'error', sink: () => {} }),
    });
  };
}

/**
 * Ticks A and B at once (their reads and advances interleaved by `tick`'s store), then a next tick;
 * every message sent is delivered at `deliverAt`.
 */
async function raceThenNext(
  store: ScheduleStore,
  worker: ReturnType<typeof fireCountingWorker>['worker'],
  tick: ReturnType<typeof ticker>,
  at: { a: number; b: number; next: number; deliverAt: number },
) {
  const [a, b] = await Promise.all([tick(at.a), tick(at.b)]);
  const sentByBoth = worker.queue.drain();
  const afterRace = await store.getSchedule('every-30s');
  const next = await tick(at.next);
  const sentByNext = worker.queue.drain();
  worker.clock.set(at.deliverAt);
  await worker.deliver([...sentByBoth, ...sentByNext].map((message) => sqsRecord(message)));
  return { a, b, sentByBoth, afterRace, next, sentByNext };
}

/** A worker counting runs over `store`, with a schedule firing every 30 s from T0 (coalesce `latest`). */
async function everyThirtySeconds(store: ScheduleStore & JobStore) {
  const counting = fireCountingWorker({}, { jobStore: store, scheduleStore: store });
  await store.addSchedule({
    schedule: scheduleDefinition('every-30s', { coalesce: 'latest' }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: T0 - 90 * SECOND,
  });
  return counting;
}

function fireTimes(messages: readonly JobMessage[]): number[] {
  return messages.map((message) => message.job.fireTime ?? -1).sort((x, y) => x - y);
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
