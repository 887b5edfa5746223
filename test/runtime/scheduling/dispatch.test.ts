import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAN_LIMITS } from '../../../lib/core/planning';
import { type DispatchDeps, dispatchLeasedSchedule } from '../../../lib/runtime/scheduling/dispatch';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

const LEASE_MS = 60_000;

async function leasedSchedule(runtime: ReturnType<typeof testRuntime>, nextFireAt: number, overrides = {}) {
  const { store, clock } = runtime;
  await store.addSchedule({
    schedule: scheduleDefinition('every-30s', overrides),
    nextFireAt,
    conflictPolicy: 'exception',
    now: clock.now(),
  });
  const [schedule] = await store.acquireDueSchedules({
    owner: 'tick-a',
    now: clock.now(),
    dueBefore: clock.now() + DEFAULT_PLAN_LIMITS.lookaheadMs,
    leaseMs: LEASE_MS,
    limit: 10,
  });
  if (!schedule) throw new Error('schedule was not leased');
  return schedule;
}

function dispatchDeps(runtime: ReturnType<typeof testRuntime>): DispatchDeps {
  const { store, queue, clock } = runtime;
  return { scheduleStore: store, queue, clock, random: () => 0.5, limits: DEFAULT_PLAN_LIMITS };
}

describe('dispatchLeasedSchedule', () => {
  it('sends every fire in the lookahead window with DelaySeconds = whole seconds until its run time', async () => {
    // Prepare: fires every 30 s from T0; now is T0 - 0.4 s, so the window holds T0, T0+30 s, T0+60 s
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    const schedule = await leasedSchedule(runtime, T0);

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess
    expect(
      runtime.queue.sent.map((message) => [message.job.id, message.delaySeconds, message.attempt]),
    ).toEqual([
      [`every-30s@${T0}`, 0, 1],
      [`every-30s@${T0 + 30 * SECOND}`, 30, 1],
      [`every-30s@${T0 + 60 * SECOND}`, 60, 1],
    ]);
    expect(runtime.queue.sent[1]?.job).toMatchObject({
      task: 'echo',
      origin: 'schedule',
      scheduleId: 'every-30s',
    });
    expect(summary).toEqual({
      scheduleId: 'every-30s',
      jobsSent: 3,
      sendFailures: 0,
      release: 'released',
      nextFireAt: T0 + 90 * SECOND,
      fireLagMs: [],
    });
    const stored = await runtime.store.getSchedule('every-30s');
    expect(stored).toMatchObject({
      nextFireAt: T0 + 90 * SECOND,
      lastFireAt: T0 + 60 * SECOND,
      leaseOwner: null,
    });
  });

  it('reports how late past fires were sent and gives them their start deadline', async () => {
    // Prepare: the fire at T0 was missed by 5 s; misfire grace 10 s
    const runtime = testRuntime();
    runtime.clock.set(T0 + 5 * SECOND);
    const schedule = await leasedSchedule(runtime, T0, { misfireGraceSeconds: 10 });

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess
    expect(summary.fireLagMs).toEqual([5 * SECOND]);
    expect(runtime.queue.sent[0]?.job).toMatchObject({
      fireTime: T0,
      runAt: T0,
      startDeadline: T0 + 10 * SECOND,
    });
    expect(runtime.queue.sent[0]?.delaySeconds).toBe(0);
  });

  it('resumes from the earliest unsent fire when some messages fail to send', async () => {
    // Prepare: the second of three window fires fails to send
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    const schedule = await leasedSchedule(runtime, T0);
    runtime.queue.failWhen = (message) => message.job.fireTime === T0 + 30 * SECOND;

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess
    expect(summary).toMatchObject({
      jobsSent: 2,
      sendFailures: 1,
      release: 'released',
      nextFireAt: T0 + 30 * SECOND,
    });
    expect(await runtime.store.getSchedule('every-30s')).toMatchObject({
      nextFireAt: T0 + 30 * SECOND,
      lastFireAt: T0,
    });
  });

  it('releases the schedule to resume from its first fire when the queue throws', async () => {
    // Prepare: the queue is unreachable
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    const schedule = await leasedSchedule(runtime, T0);
    runtime.queue.send = async () => {
      throw new Error('connect ECONNREFUSED');
    };

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess: nothing counted as sent, and no lease left behind to delay the next tick
    expect(summary).toMatchObject({ jobsSent: 0, sendFailures: 3, release: 'released', nextFireAt: T0 });
    expect(await runtime.store.getSchedule('every-30s')).toMatchObject({ nextFireAt: T0, leaseOwner: null });
  });

  it("reports 'lease_lost' when another tick took the schedule over after the lease expired", async () => {
    // Prepare: tick-a's lease expires and tick-b leases the schedule
    const runtime = testRuntime();
    const schedule = await leasedSchedule(runtime, T0 + 10 * SECOND);
    runtime.clock.advance(LEASE_MS + 1);
    const [takenOver] = await runtime.store.acquireDueSchedules({
      owner: 'tick-b',
      now: runtime.clock.now(),
      dueBefore: runtime.clock.now() + 90 * SECOND,
      leaseMs: LEASE_MS,
      limit: 10,
    });
    expect(takenOver?.leaseOwner).toBe('tick-b');

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess
    expect(summary.release).toBe('lease_lost');
    expect(await runtime.store.getSchedule('every-30s')).toMatchObject({ leaseOwner: 'tick-b' });
  });

  it('finishes the schedule when its trigger has no fire time left', async () => {
    // Prepare: a one-off date trigger inside the window
    const runtime = testRuntime();
    const schedule = await leasedSchedule(runtime, T0 + 10 * SECOND, {
      trigger: { type: 'date', run_at: new Date(T0 + 10 * SECOND).toISOString() },
    });

    // Act
    const summary = await dispatchLeasedSchedule(dispatchDeps(runtime), schedule, 'tick-a');

    // Assess
    expect(summary).toMatchObject({ jobsSent: 1, nextFireAt: null, release: 'released' });
    expect(runtime.queue.sent[0]?.delaySeconds).toBe(10);
    expect(await runtime.store.getSchedule('every-30s')).toMatchObject({ nextFireAt: null });
  });
});
