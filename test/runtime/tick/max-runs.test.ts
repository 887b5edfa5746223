import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../lib/core/model/schedule';
import {
  type DispatchRuntime,
  dispatchRuntime,
  fireTimes,
  interval,
  MINUTE,
  ranOnceEach,
} from '../dispatch/dispatch-harness';
import { SECOND, T0 } from '../support';

/** `id` every 30 s from T0 with `max_runs`, added through the admin API 5 minutes before T0. */
async function addCapped(
  runtime: DispatchRuntime,
  id: string,
  maxRuns: number,
  fields: Record<string, unknown> = {},
) {
  runtime.clock.set(T0 - 5 * MINUTE);
  await runtime.add(id, interval(30), { max_runs: maxRuns, ...fields });
}

describe('tick: max_runs', () => {
  it('dispatches at most max_runs fires, marks the last one, and finishes the schedule', async () => {
    // Prepare: the first note's chunk holds four fire times (T0 … +90 s); the limit is two
    const runtime = dispatchRuntime();
    await addCapped(runtime, 'twice', 2);
    runtime.clock.set(T0 - 150 * SECOND);

    // Act
    const summary = await runtime.tick();

    // Assess
    expect(runtime.sent.map((s) => s.message.job.fireTime)).toEqual([T0, T0 + 30 * SECOND]);
    expect(await runtime.store.getSchedule('twice')).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0 + 30 * SECOND,
      runs: 2,
    });
    expect(summary.schedulesFinished).toBe(1);
    expect(runtime.publisher.events.filter((event) => event.type === 'schedule.finished')).toEqual([
      expect.objectContaining({ type: 'schedule.finished', scheduleId: 'twice', runs: 2, maxRuns: 2 }),
    ]);
  });

  it('counts fires across notes and stops at the limit', async () => {
    // Prepare: limit 5; the first chunk holds four fires, the next one the fifth
    const runtime = dispatchRuntime();
    await addCapped(runtime, 'five', 5);

    // Act
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    // Assess
    expect(runtime.sent.map((s) => (s.message.job.fireTime ?? 0) - T0)).toEqual(
      [0, 30, 60, 90, 120].map((seconds) => seconds * SECOND),
    );
    expect(await runtime.store.getSchedule('five')).toMatchObject({ runs: 5, nextFireAt: null });
  });

  it('finishes the schedule although the event bus fails: events are best effort', async () => {
    const runtime = dispatchRuntime();
    await addCapped(runtime, 'once', 1);
    runtime.publisher.failing = true;
    runtime.clock.set(T0 - 150 * SECOND);

    const summary = await runtime.tick();

    expect(summary).toMatchObject({ errors: 0, schedulesFinished: 1, eventFailures: 1 });
    expect(await runtime.store.getSchedule('once')).toMatchObject({ runs: 1, nextFireAt: null });
    expect(runtime.logLines).toContainEqual(
      expect.objectContaining({ message: 'publishing events failed; the changes they tell of stand' }),
    );
  });

  it('never runs more than max_runs, each fire once, when dispatchers stuck past their shard lease overlap the next tick and sends fail now and then', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ limit: fc.integer({ min: 1, max: 30 }), coalesce: fc.constantFrom('all', 'latest') }),
          { minLength: 1, maxLength: 3 },
        ),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 14 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 50 }),
        async (schedules, stalls, failEvery, offsetSeconds) => {
          const runtime = dispatchRuntime();
          for (const [index, { limit, coalesce }] of schedules.entries()) {
            await addCapped(runtime, `s-${index}`, limit, { coalesce });
          }
          let sends = 0;
          runtime.queue.failWhen = () => failEvery > 0 && ++sends % (failEvery + 1) === 0;
          // A tick a minute; a stalled one holds its first send until after the next tick has run (its
          // shard leases long run out), so the next tick reads the same notes: both late, both send
          let at = T0 - 4 * MINUTE + offsetSeconds * SECOND;
          for (const stalled of stalls) {
            runtime.clock.set(at);
            if (stalled) await overlappedByTheNext(runtime, at + MINUTE);
            else await runtime.tick();
            at += stalled ? 2 * MINUTE : MINUTE;
            await runtime.deliverDue(at - 1);
          }
          runtime.queue.failWhen = () => false;
          runtime.clock.set(Math.max(runtime.clock.now(), at));
          await runtime.tickEveryMinuteUntil(at + 15 * MINUTE, (tickAt) => runtime.deliverDue(tickAt));
          await runtime.deliverDue(at + 30 * MINUTE);

          for (const [index, { limit, coalesce }] of schedules.entries()) {
            const id = `s-${index}`;
            const ran = ranOnceEach(runtime.runs, id);
            expect(ran.once).toBe(true);
            expect(ran.times.length).toBeLessThanOrEqual(limit);
            const sent = new Set(runtime.sentOf(id).map((s) => s.message.job.fireTime));
            // Without coalescing, overlapping readers of one note plan the same fires: none beyond the cap
            if (coalesce === 'all') {
              expect(sent.size).toBeLessThanOrEqual(limit);
              expect(ran.times.length).toBe(limit);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

/**
 * A tick at the clock's time whose first send is held until a tick at `next` has run, then let go: a
 * dispatcher stuck past its shard lease, overlapped by the next tick's.
 */
async function overlappedByTheNext(runtime: DispatchRuntime, next: number): Promise<void> {
  const send = runtime.queue.send;
  let reached: () => void = () => {};
  let release: () => void = () => {};
  const atGate = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  runtime.queue.send = async (messages) => {
    if (!held) {
      held = true;
      reached();
      await gate;
    }
    return send(messages);
  };
  const stuck = runtime.tick();
  await Promise.race([atGate, stuck]);
  runtime.queue.send = send;
  runtime.clock.set(next);
  await runtime.tick();
  release();
  await stuck;
}

describe('max_runs and a payload change while a capped chain sends', () => {
  it('never runs more fires than max_runs when the owner changes the payload between the read and the send', async () => {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    await runtime.add('capped', interval(1), { max_runs: 5, coalesce: 'latest' });
    // The tick reads the schedule's first note and item; before it sends, the owner changes the payload
    // (same trigger: its chain goes on, the fires in flight are replaced when they come up: ADR 0002)
    const readSchedules = runtime.store.readSchedules.bind(runtime.store);
    let changed = false;
    runtime.store.readSchedules = async (ids): Promise<Map<string, Schedule>> => {
      const items = await readSchedules(ids);
      if (!changed && items.has('capped')) {
        changed = true;
        await runtime.admin({ action: 'update_schedule', id: 'capped', payload: { n: 2 } });
      }
      return items;
    };

    // Act: ticks and a worker running every message (and each replacement it sends)
    await runtime.tickEveryMinuteUntil(T0 + 5 * MINUTE, (at) => runtime.deliverDue(at + MINUTE - 1));

    // Assess
    expect(changed).toBe(true);
    const ran = [...runtime.runs.keys()].sort((a, b) => a - b);
    expect(ran).toEqual(fireTimes(interval(1), T0, T0 + 4 * SECOND));
    expect([...runtime.runs.values()].flat().every((run) => JSON.stringify(run.payload) === '{"n":2}')).toBe(
      true,
    );
    // It reached max_runs and, its last fire ended, was removed (not keep_finished: ADR 0004)
    expect(await runtime.store.getSchedule('capped')).toBeUndefined();
  });
});
