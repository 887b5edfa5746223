import { describe, expect, it, vi } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

async function addSchedules(runtime: ReturnType<typeof testRuntime>, count: number, overrides = {}) {
  for (let index = 0; index < count; index++) {
    await runtime.store.addSchedule({
      schedule: scheduleDefinition(`schedule-${index}`, overrides),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: runtime.clock.now(),
    });
  }
}

describe('tick', () => {
  it('moves a schedule on without a lease, but leases one with max_runs, and counts the fires of both', async () => {
    // Prepare: two schedules every 30 s from T0, one of them limited to 10 runs; the tick runs before T0
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 1);
    await runtime.store.addSchedule({
      schedule: scheduleDefinition('capped', { maxRuns: 10 }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: runtime.clock.now(),
    });
    const leases = vi.spyOn(runtime.store, 'leaseSchedule');
    const advances = vi.spyOn(runtime.store, 'advanceSchedule');

    // Act
    await createTickHandler(() => runtime.deps)();

    // Assess
    expect(leases.mock.calls.map(([id]) => id)).toEqual(['capped']);
    expect(advances.mock.calls.map(([input]) => input.id)).toEqual(['schedule-0']);
    expect(await runtime.store.getSchedule('schedule-0')).toMatchObject({ runs: 3, leaseOwner: null });
    expect(await runtime.store.getSchedule('capped')).toMatchObject({ runs: 3, leaseOwner: null });
  });

  it('dispatches the fires of due schedules inside the lookahead, each delayed until its fire time', async () => {
    // Prepare: two schedules firing every 30 s from T0; the tick runs 0.4 s before T0
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 2);
    const tick = createTickHandler(() => runtime.deps);

    // Act
    const summary = await tick();

    // Assess
    expect(summary).toMatchObject({
      schedulesProcessed: 2,
      jobsEnqueued: 6,
      errors: 0,
      budgetExhausted: false,
    });
    const sent = runtime.queue.sent.map((message) => `${message.job.id}+${message.delaySeconds}s`).sort();
    expect(sent).toEqual([
      `schedule-0@${T0}+0s`,
      `schedule-0@${T0 + 30 * SECOND}+30s`,
      `schedule-0@${T0 + 60 * SECOND}+60s`,
      `schedule-1@${T0}+0s`,
      `schedule-1@${T0 + 30 * SECOND}+30s`,
      `schedule-1@${T0 + 60 * SECOND}+60s`,
    ]);
  });

  it('keeps acquiring after a short round: schedules another tick held may be free again', async () => {
    // Prepare: 10 due schedules; another tick holds 3 of them and releases them (unsent) while this
    // tick sends its second, short round
    const runtime = testRuntime({ acquireBatchSize: 4 });
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 10, {
      trigger: { type: 'interval', minutes: 10, start_at: new Date(T0).toISOString() },
    });
    const held = await runtime.store.acquireDueSchedules({
      owner: 'other-tick',
      now: runtime.clock.now(),
      dueBefore: T0,
      leaseMs: 60 * SECOND,
      limit: 3,
    });
    let sends = 0;
    runtime.queue.afterSend = () => {
      sends += 1;
      if (sends !== 2) return;
      for (const schedule of held) {
        void runtime.store.releaseSchedule({
          id: schedule.id,
          owner: 'other-tick',
          leasedVersion: schedule.version,
          leased: {
            nextFireAt: schedule.nextFireAt,
            firesFrom: schedule.firesFrom,
            maxRuns: schedule.maxRuns,
          },
          nextFireAt: schedule.nextFireAt,
          lastFireAt: null,
          firesDispatched: 0,
          now: runtime.clock.now(),
        });
      }
    };

    // Act: round 1 leases 4, round 2 the other 3 free ones (a short round), round 3 the released 3
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.schedulesProcessed).toBe(10);
    expect(new Set(runtime.queue.sent.map((message) => message.job.scheduleId)).size).toBe(10);
  });

  it('sends every fire and moves each schedule on once when two ticks race without leases', async () => {
    // Prepare
    const runtime = testRuntime({ acquireBatchSize: 7 });
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 40);
    const first = createTickHandler(() => runtime.deps);
    const second = createTickHandler(() => runtime.deps);

    // Act
    const [a, b] = await Promise.all([first(), second()]);

    // Assess: a fire sent by both has one id (the worker drops the copy); each schedule moved on once,
    // to where either tick's plan ends
    const ids = runtime.queue.sent.map((message) => message.job.id);
    expect(new Set(ids).size).toBe(40 * 3);
    expect(a.schedulesProcessed + b.schedulesProcessed).toBeGreaterThanOrEqual(40);
    expect(a.errors + b.errors).toBe(0);
    const { items } = await runtime.store.listSchedules({}, { limit: 100 });
    expect(items.every((schedule) => schedule.nextFireAt === T0 + 90 * SECOND)).toBe(true);
  });

  it('reads a schedule it could not move on no more in the same run, and leaves it for the next tick', async () => {
    // Prepare: every advance fails, so each schedule stays due after its fires were sent
    const runtime = testRuntime({ acquireBatchSize: 2 });
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 3);
    const advance = runtime.store.advanceSchedule.bind(runtime.store);
    runtime.store.advanceSchedule = async () => {
      throw new Error('store unavailable');
    };
    const tick = createTickHandler(() => runtime.deps);

    // Act
    const failing = await tick();
    const sentByFailing = runtime.queue.drain();
    runtime.store.advanceSchedule = advance;
    const next = await tick();

    // Assess: each schedule's fires were sent once by the failing run, and again by the next
    expect(failing).toMatchObject({ schedulesProcessed: 0, errors: 3, jobsEnqueued: 0 });
    expect(sentByFailing).toHaveLength(3 * 3);
    expect(next).toMatchObject({ schedulesProcessed: 3, errors: 0, jobsEnqueued: 9 });
  });

  it('stops acquiring schedules when its time budget is spent and leaves the rest to the next tick', async () => {
    // Prepare: every send (one per round of leased schedules) takes 45 s of the 40 s budget; two per round
    const runtime = testRuntime({
      acquireBatchSize: 2,
      tickConcurrency: 1,
      tickRoundsInFlight: 1,
      tickBudgetMs: 40_000,
    });
    runtime.clock.set(T0 - 400);
    await addSchedules(runtime, 5, {
      trigger: { type: 'interval', hours: 1, start_at: new Date(T0).toISOString() },
    });
    runtime.queue.afterSend = () => runtime.clock.advance(45 * SECOND);
    const tick = createTickHandler(() => runtime.deps);

    // Act
    const first = await tick();
    runtime.queue.afterSend = () => {};
    const second = await tick();

    // Assess
    expect(first).toMatchObject({ schedulesProcessed: 2, budgetExhausted: true });
    expect(second).toMatchObject({ schedulesProcessed: 3, budgetExhausted: false });
    expect(runtime.queue.sent).toHaveLength(5);
  });

  it('writes one summary log line and CloudWatch EMF metrics per run', async () => {
    // Prepare: the fire at T0 is dispatched 2 s late
    const runtime = testRuntime();
    runtime.clock.set(T0 + 2 * SECOND);
    await addSchedules(runtime, 1);

    // Act
    await createTickHandler(() => runtime.deps)();

    // Assess
    const summaries = runtime.logLines.filter((line) => line.message === 'tick finished');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      level: 'INFO',
      schedulesProcessed: 1,
      jobsEnqueued: 4,
      maxFireLagMs: 2000,
    });
    expect(runtime.metricLines).toHaveLength(1);
    const [emf] = runtime.metricLines;
    expect(emf).toMatchObject({
      Service: 'tick',
      SchedulesProcessed: 1,
      JobsEnqueued: 4,
      FireLag: 2000,
      JobsReaped: 0,
      _aws: {
        Timestamp: T0 + 2 * SECOND,
        CloudWatchMetrics: [{ Namespace: 'Sundial', Dimensions: [['Service']] }],
      },
    });
    const aws = emf?._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } | undefined;
    const names = aws?.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name);
    expect(names).toEqual(
      expect.arrayContaining(['SchedulesProcessed', 'JobsEnqueued', 'FireLag', 'TickDuration', 'JobsReaped']),
    );
  });

  it('sends a parked job once it comes within the lookahead, and only once', async () => {
    // Prepare: a job to run 20 minutes from now waits in the due index
    const runtime = testRuntime();
    const runAt = T0 + 20 * 60 * SECOND;
    await runtime.store.createJob({
      job: {
        id: 'later',
        task: 'echo',
        payload: null,
        origin: 'direct',
        scheduleId: null,
        fireTime: null,
        runAt,
        startDeadline: null,
      },
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: true,
    });
    const tick = createTickHandler(() => runtime.deps);

    // Act
    const early = await tick();
    runtime.clock.set(runAt - 60 * SECOND);
    const due = await tick();
    const after = await tick();

    // Assess
    expect([early.parkedJobsSent, due.parkedJobsSent, after.parkedJobsSent]).toEqual([0, 1, 0]);
    expect(
      runtime.queue.sent.map((message) => [message.job.id, message.attempt, message.delaySeconds]),
    ).toEqual([['later', 1, 60]]);
  });

  it('repairs task counters on its first run and then once per interval; lowering one takes two repairs', async () => {
    // Prepare
    const runtime = testRuntime({ counterRepairIntervalSeconds: 600 });
    runtime.store.setRunningCount('echo', 3);
    const tick = createTickHandler(() => runtime.deps);

    // Act
    const first = await tick();
    runtime.store.setRunningCount('echo', 2);
    runtime.clock.advance(60 * SECOND);
    const soon = await tick();
    runtime.clock.advance(600 * SECOND);
    const later = await tick();

    // Assess
    // The first repair only observes the too-high counter; the next one, a settle period later, lowers it.
    expect([first.countersRepaired, soon.countersRepaired, later.countersRepaired]).toEqual([0, 0, 1]);
    expect(await runtime.store.runningCounts()).toEqual(new Map([['echo', 0]]));
  });
});
