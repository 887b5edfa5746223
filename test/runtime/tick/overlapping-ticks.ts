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
  const { worker, runs } = fireCountingWorker({}, { jobStore: store, scheduleStore: store });
  await store.addSchedule({
    schedule: scheduleDefinition('every-30s', { coalesce: 'latest' }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: T0 - 90 * SECOND,
  });
  const bothRead = barrier(2);
  const bothSent = barrier(2);
  const advanceOrder: string[] = [];
  const outcomes: AdvanceOutcome[] = [];
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
          // A (planned to T0 + 60 s) writes first, then B (planned to T0 + 90 s)
          if (input.nextFireAt !== T0 + 60 * SECOND) await until(() => advanceOrder.length === 1);
        }
        const outcome = await store.advanceSchedule(input);
        advanceOrder.push(String(input.nextFireAt));
        outcomes.push(outcome);
        return outcome;
      },
    },
  });
  const tick = (now: number) => {
    const deps: DispatchDeps = {
      scheduleStore: interleaved,
      queue: worker.queue,
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

  const [a, b] = await Promise.all([tick(T0 - 60 * SECOND), tick(T0 - 20 * SECOND)]);
  const sentByBoth = worker.queue.drain();
  const afterRace = await store.getSchedule('every-30s');
  const next = await tick(T0 + 10 * SECOND);
  const sentByNext = worker.queue.drain();
  worker.clock.set(T0 + 200 * SECOND);
  await worker.deliver([...sentByBoth, ...sentByNext].map((message) => sqsRecord(message)));

  expect(outcomes).toEqual(['advanced', 'lost', 'advanced']);
  expect([a.leasesLost, b.leasesLost]).toEqual([0, 1]);
  expect(fireTimes(sentByBoth)).toEqual([T0, T0, T0 + 30 * SECOND, T0 + 30 * SECOND, T0 + 60 * SECOND]);
  expect(afterRace).toMatchObject({ nextFireAt: T0 + 60 * SECOND, lastFireAt: T0 + 30 * SECOND, version: 1 });
  expect(next).toMatchObject({ leasesLost: 0, errors: 0 });
  // The fire B sent beyond A's window is sent again, under the same id, by the next tick
  expect(fireTimes(sentByNext)).toEqual([T0 + 60 * SECOND, T0 + 90 * SECOND]);
  expect([...runs.keys()].sort((x, y) => x - y)).toEqual([0, 30, 60, 90].map((s) => T0 + s * SECOND));
  expect([...runs.values()].every((count) => count === 1)).toBe(true);
}

function fireTimes(messages: readonly JobMessage[]): number[] {
  return messages.map((message) => message.job.fireTime ?? -1).sort((x, y) => x - y);
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
