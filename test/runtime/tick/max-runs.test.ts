import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';
import { fireCountingWorker } from './fire-counting-worker';

/** A schedule firing every 30 s from T0 (the support default), with `maxRuns`. */
async function addSchedule(
  runtime: ReturnType<typeof testRuntime>,
  id: string,
  maxRuns: number | null,
  coalesce: 'latest' | 'all' = 'latest',
) {
  await runtime.store.addSchedule({
    schedule: scheduleDefinition(id, { maxRuns, coalesce }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: runtime.clock.now(),
  });
}

describe('tick: max_runs', () => {
  it('dispatches at most max_runs fires, marks the last one, and finishes the schedule', async () => {
    // Prepare: the 90 s window holds three fire times (T0, +30 s, +60 s); the limit is two
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    await addSchedule(runtime, 'twice', 2);

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(runtime.queue.sent.map((message) => [message.job.fireTime, message.finalFire])).toEqual([
      [T0, undefined],
      [T0 + 30 * SECOND, true],
    ]);
    expect(await runtime.store.getSchedule('twice')).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0 + 30 * SECOND,
      runs: 2,
    });
    expect(summary.schedulesFinished).toBe(1);
    expect(runtime.publisher.events).toEqual([
      expect.objectContaining({ type: 'schedule.finished', scheduleId: 'twice', runs: 2, maxRuns: 2 }),
    ]);
  });

  it('counts fires across ticks and stops at the limit', async () => {
    // Prepare: limit 5; the first tick sends T0..+60 s (3), the second the 2 left of +90 s..+150 s
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    await addSchedule(runtime, 'five', 5);
    const tick = createTickHandler(() => runtime.deps);

    // Act
    await tick();
    const afterFirst = await runtime.store.getSchedule('five');
    runtime.clock.set(T0 + 60 * SECOND);
    await tick();
    runtime.clock.set(T0 + 10 * 60 * SECOND);
    await tick();

    // Assess
    expect(afterFirst).toMatchObject({ runs: 3, nextFireAt: T0 + 90 * SECOND });
    expect(runtime.queue.sent.map((message) => (message.job.fireTime ?? 0) - T0)).toEqual(
      [0, 30, 60, 90, 120].map((seconds) => seconds * SECOND),
    );
    expect(runtime.queue.sent.filter((message) => message.finalFire)).toHaveLength(1);
    expect(await runtime.store.getSchedule('five')).toMatchObject({ runs: 5, nextFireAt: null });
  });

  it('finishes the schedule although the event bus fails: events are best effort', async () => {
    const runtime = testRuntime();
    runtime.clock.set(T0 - 400);
    await addSchedule(runtime, 'once', 1);
    runtime.publisher.failing = true;

    const summary = await createTickHandler(() => runtime.deps)();

    expect(summary).toMatchObject({ errors: 0, schedulesFinished: 1, eventFailures: 1 });
    expect(await runtime.store.getSchedule('once')).toMatchObject({ runs: 1, nextFireAt: null });
    expect(runtime.logLines).toContainEqual(
      expect.objectContaining({ message: 'publishing events failed; the changes they tell of stand' }),
    );
  });

  it('counts each fire once, and never more than max_runs, when ticks race and a send fails now and then', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 0, max: 5 }),
        async (limits, tickOffsetsSeconds, failEvery) => {
          const runtime = testRuntime();
          runtime.clock.set(T0 - 400);
          // `all`: a fire sent after a failed one is sent again when the schedule resumes at the failed
          // one (with `latest`, a later outage may coalesce it away: ADR 0004, consequences).
          for (const [index, limit] of limits.entries()) {
            await addSchedule(runtime, `s-${index}`, limit, 'all');
          }
          let sends = 0;
          runtime.queue.failWhen = () => failEvery > 0 && ++sends % (failEvery + 1) === 0;
          const tick = createTickHandler(() => runtime.deps);

          // Ticks overlap in pairs: each pair runs concurrently at the same instant.
          for (const offset of [...tickOffsetsSeconds].sort((a, b) => a - b)) {
            runtime.clock.set(T0 - 400 + offset * SECOND);
            await Promise.all([tick(), tick()]);
          }

          for (const [index, limit] of limits.entries()) {
            const schedule = await runtime.store.getSchedule(`s-${index}`);
            const sentFireTimes = new Set(
              runtime.queue.sent
                .filter((message) => message.job.scheduleId === `s-${index}`)
                .map((message) => message.job.fireTime),
            );
            // Fires counted: exactly the fire times before where the schedule resumes, each once.
            const counted = [...sentFireTimes].filter(
              (fireTime) => schedule?.nextFireAt === null || (fireTime ?? 0) < (schedule?.nextFireAt ?? 0),
            );
            expect(schedule?.runs).toBe(counted.length);
            if (limit !== null) expect(sentFireTimes.size).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('max_runs and an update racing the leased release', () => {
  it('never runs more fires than max_runs when a payload change supersedes the release', async () => {
    const { worker, runs } = fireCountingWorker({ scheduleLeaseSeconds: 120 });
    worker.clock.set(T0 - 500);
    await worker.store.addSchedule({
      schedule: scheduleDefinition('capped', {
        maxRuns: 5,
        coalesce: 'latest',
        trigger: {
          type: 'interval',
          seconds: 1,
          start_at: new Date(T0).toISOString(),
        } as unknown as TriggerSpec,
      }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: worker.clock.now(),
    });
    // The tick leases and sends T0 … T0 + 4 s (all 5 runs); before its release lands (a throttled write,
    // 3 s) the owner changes the payload as update_schedule does: same trigger, next fire time as read
    const release = worker.store.releaseSchedule.bind(worker.store);
    worker.store.releaseSchedule = async (input) => {
      worker.store.releaseSchedule = release;
      const current = await worker.store.getSchedule('capped');
      await worker.store.updateSchedule(
        'capped',
        { payload: { n: 2 } },
        current?.nextFireAt ?? null,
        worker.clock.now(),
        current?.version,
      );
      worker.clock.advance(3 * SECOND);
      return release(input);
    };
    const tick = createTickHandler(() => worker.deps);
    await tick();

    // Act: every message (and each replacement the worker sends) is delivered; later ticks run
    worker.clock.set(T0 + 300 * SECOND);
    await tick();
    for (let round = 0; round < 10 && worker.queue.sent.length > 0; round++) {
      await worker.deliver(worker.queuedRecords());
    }

    // Assess
    const ran = [...runs.keys()].sort((a, b) => a - b).map((fireTime) => (fireTime - T0) / SECOND);
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    // It reached max_runs and, its last fire ended, was removed (not keep_finished: ADR 0004)
    expect(await worker.store.getSchedule('capped')).toBeUndefined();
  });
});
