import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import {
  dispatchRuntime,
  expectEveryFireOnce,
  fireTimes,
  interval,
  MINUTE,
} from '../dispatch/dispatch-harness';
import { idAtPhase, idsAtPhase, SECOND, T0, testRuntime } from '../support';

const hourlyFrom = (start: number) =>
  ({ type: 'interval', hours: 1, start_at: new Date(start).toISOString() }) as const;

describe('tick', () => {
  it('sends the fires of the notes whose bucket has come, each delayed to its run time, across every shard', async () => {
    // Prepare: 20 schedules every 30 s from T0 whose chunks start at the grid's boundaries, added through the admin API 5 minutes before; their
    // first notes (the chunk [T0, T0 + 120 s)) are read from T0 − 150 s
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const ids = idsAtPhase('schedule', 20);
    for (const id of ids) await runtime.add(id, interval(30));
    runtime.clock.set(T0 - 150 * SECOND);

    // Act
    const summary = await runtime.tick();

    // Assess: every fire of the chunk sent once, delivered by its run time, none before 50 ms ahead of it
    expect(summary).toMatchObject({
      schedulesProcessed: 20,
      jobsEnqueued: 80,
      errors: 0,
      budgetExhausted: false,
      shardsLeased: 16,
      dispatchersStarted: 8,
    });
    const sent = runtime.sent.map((s) => s.message.job.id).sort();
    expect(sent).toEqual(ids.flatMap((id) => [0, 30, 60, 90].map((s) => `${id}@${T0 + s * SECOND}`)).sort());
    for (const { at, message } of runtime.sent) {
      const delivery = at + message.delaySeconds * SECOND;
      expect(delivery).toBeLessThanOrEqual(message.job.runAt);
      expect(delivery).toBeGreaterThanOrEqual(message.job.runAt - 50);
    }
  });

  it('sends the fires of many schedules in step with time: each bucket read sends a share of a chunk, not the whole chunk at once', async () => {
    // Prepare: 240 schedules every 5 s from T0 (ids as users pick them), added 10 minutes before
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 10 * MINUTE);
    const ids = Array.from({ length: 240 }, (_, n) => `report-${n}`);
    for (const id of ids) await runtime.add(id, interval(5));

    // Act: a tick every 10 s (one bucket each), as locally, for 6 minutes
    const sentPerTick: number[] = [];
    for (let at = T0 - 4 * MINUTE; at < T0 + 2 * MINUTE; at += 10 * SECOND) {
      runtime.clock.set(at);
      const before = runtime.sent.length;
      await runtime.tick();
      sentPerTick.push(runtime.sent.length - before);
    }

    // Assess: over the last 2 minutes of ticks (one chunk's worth of buckets), every tick sent some
    // fires and none more than a quarter of them (aligned chunks sent all 240 schedules' in one tick)
    const lastChunk = sentPerTick.slice(-12);
    const total = lastChunk.reduce((sum, count) => sum + count, 0);
    expect(total).toBe(240 * 24);
    expect(Math.min(...lastChunk)).toBeGreaterThan(0);
    expect(Math.max(...lastChunk)).toBeLessThanOrEqual(total / 4);
    for (const id of ids) expectEveryFireOnce(runtime.sentOf(id), interval(5), T0 + 3 * MINUTE);
  });

  it('sends every fire once when two ticks run at once: each shard is read by the one that leased it', async () => {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const ids = idsAtPhase('schedule', 40);
    for (const id of ids) await runtime.add(id, interval(30));
    runtime.clock.set(T0 - 150 * SECOND);

    const [a, b] = await Promise.all([runtime.tick(), runtime.tick()]);

    expect(a.shardsLeased + b.shardsLeased).toBe(16);
    expect(a.schedulesProcessed + b.schedulesProcessed).toBe(40);
    expect(a.errors + b.errors).toBe(0);
    const sent = runtime.sent.map((s) => s.message.job.id);
    expect(sent.length).toBe(40 * 4);
    expect(new Set(sent).size).toBe(40 * 4);
  });

  it('stops reading pages when its budget is spent, and leaves the later buckets of the shard to the next tick', async () => {
    // Prepare: 25 hourly schedules of one shard, their first fires 10 s apart: 25 notes in 25 buckets,
    // read 20 note items a page; reading a page's schedules takes 45 s of the 40 s budget
    const runtime = dispatchRuntime();
    const ids: string[] = [];
    for (let n = 0; ids.length < 25; n++) if (shardOf(`s-${n}`, 16) === 0) ids.push(`s-${n}`);
    runtime.clock.set(T0 - 20 * MINUTE);
    for (const [index, id] of ids.entries()) await runtime.add(id, hourlyFrom(T0 + index * 10 * SECOND));
    runtime.clock.set(T0 - 9 * MINUTE);
    const readSchedules = runtime.store.readSchedules.bind(runtime.store);
    runtime.store.readSchedules = async (scheduleIds) => {
      runtime.clock.advance(45 * SECOND);
      return readSchedules(scheduleIds);
    };

    // Act
    const first = await runtime.tick();
    runtime.store.readSchedules = readSchedules;
    runtime.clock.set(T0 - 7 * MINUTE);
    const second = await runtime.tick();

    // Assess: the first tick's one page, then the rest; each schedule's first fire sent once
    expect(first).toMatchObject({ schedulesProcessed: 20, budgetExhausted: true, errors: 0 });
    expect(second).toMatchObject({ schedulesProcessed: 5, budgetExhausted: false, errors: 0 });
    expect(runtime.sent.map((s) => s.message.job.scheduleId).sort()).toEqual([...ids].sort());
  });

  it('writes one summary log line and CloudWatch EMF metrics per run', async () => {
    // Prepare: an admin call wrote a schedule every 30 s and its first note at T0 − 20 s, and died; the
    // tick at T0 + 2 s reads that note late: the fire at T0 goes 2 s late, with the fires after it
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * SECOND);
    await runtime.addAndDie(idAtPhase('every-30s'), interval(30));
    runtime.clock.set(T0 + 2 * SECOND);

    // Act
    await createTickHandler(() => runtime.deps)();

    // Assess
    const jobs = fireTimes(interval(30), T0, T0 + 239 * SECOND).length;
    const summaries = runtime.logLines.filter((line) => line.message === 'tick finished');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      level: 'INFO',
      schedulesProcessed: 1,
      jobsEnqueued: jobs,
      maxFireLagMs: 2000,
    });
    expect(runtime.metricLines).toHaveLength(1);
    const [emf] = runtime.metricLines;
    expect(emf).toMatchObject({
      Service: 'tick',
      SchedulesProcessed: 1,
      JobsEnqueued: jobs,
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

  it('sends a parked job once it comes within 90 s of its run time, and only once', async () => {
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
