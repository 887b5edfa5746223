import { describe, expect, it } from 'vitest';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

function hourlyFrom(start: number): TriggerSpec {
  return { type: 'interval', hours: 1, start_at: new Date(start).toISOString() };
}

/** 20 due schedules with one fire each in the window, and 'poison', due a second before all of them. */
async function twentySchedulesAndPoison(
  runtime: ReturnType<typeof testRuntime>,
  poisonTrigger = hourlyFrom(T0 - SECOND),
) {
  const now = runtime.clock.now();
  await runtime.store.addSchedule({
    schedule: scheduleDefinition('poison', { trigger: poisonTrigger }),
    nextFireAt: T0 - SECOND,
    conflictPolicy: 'exception',
    now,
  });
  for (let index = 0; index < 20; index++) {
    await runtime.store.addSchedule({
      schedule: scheduleDefinition(`schedule-${index}`, { trigger: hourlyFrom(T0) }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now,
    });
  }
}

function scheduleIdsSent(runtime: ReturnType<typeof testRuntime>): string[] {
  return [...new Set(runtime.queue.sent.map((message) => message.job.scheduleId ?? ''))].sort();
}

const TWENTY = Array.from({ length: 20 }, (_, index) => `schedule-${index}`).sort();

describe('tick: one failing schedule does not hold back the others', () => {
  it('sends every other due schedule in the same tick when one schedule cannot be planned', async () => {
    // Prepare: the poison schedule's stored trigger does not compile; schedules are leased 5 at a time
    const runtime = testRuntime({ acquireBatchSize: 5 });
    runtime.clock.set(T0 - 400);
    await twentySchedulesAndPoison(runtime, { type: 'cron', expression: 'not a cron' } as TriggerSpec);

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(scheduleIdsSent(runtime)).toEqual(TWENTY);
    expect(summary).toMatchObject({ schedulesProcessed: 20, jobsEnqueued: 20, errors: 1 });
  });

  it('sends every other due schedule in the same tick when the queue rejects one schedule’s messages', async () => {
    // Prepare: the queue refuses every message of the poison schedule
    const runtime = testRuntime({ acquireBatchSize: 5 });
    runtime.clock.set(T0 - 400);
    await twentySchedulesAndPoison(runtime);
    let poisonAttempts = 0;
    runtime.queue.failWhen = (message) => {
      if (message.job.scheduleId !== 'poison') return false;
      poisonAttempts += 1;
      return true;
    };

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess: the others are sent; the poison schedule was tried once and is free to be tried next tick
    expect(scheduleIdsSent(runtime)).toEqual(TWENTY);
    expect(summary).toMatchObject({ jobsEnqueued: 20, sendFailures: 1 });
    expect(poisonAttempts).toBe(1);
    const poison = await runtime.store.getSchedule('poison');
    expect(poison).toMatchObject({ nextFireAt: T0 - SECOND, leaseOwner: null });
  });

  it('stops leasing more schedules when the queue fails as a whole, and frees the ones it leased', async () => {
    // Prepare: the queue refuses everything; one round at a time (rounds-in-flight.test.ts covers several)
    const runtime = testRuntime({ acquireBatchSize: 5, tickRoundsInFlight: 1 });
    runtime.clock.set(T0 - 400);
    await twentySchedulesAndPoison(runtime);
    let sends = 0;
    runtime.queue.failWhen = () => true;
    runtime.queue.afterSend = () => void sends++;

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess: one round was tried; its schedules resume at their first fire next tick
    expect(sends).toBe(1);
    expect(summary).toMatchObject({ jobsEnqueued: 0, sendFailures: 5 });
    const schedules = await Promise.all(
      ['poison', 'schedule-0', 'schedule-1', 'schedule-2', 'schedule-3'].map((id) =>
        runtime.store.getSchedule(id),
      ),
    );
    expect(schedules.map((schedule) => schedule?.leaseOwner ?? null)).toEqual([null, null, null, null, null]);
  });
});
