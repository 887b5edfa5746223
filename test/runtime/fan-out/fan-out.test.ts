import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import type { DispatchRequest } from '../../../lib/core/ports/dispatcher-invoker';
import { dispatcherOf, fanOutDispatch } from '../../../lib/runtime/fan-out/fan-out-dispatch';
import { runDispatcher } from '../../../lib/runtime/fan-out/run-dispatcher';
import { createDispatcherHandler } from '../../../lib/runtime/handlers/dispatcher';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { type DispatchRuntime, dispatchRuntime, interval, MINUTE } from '../dispatch/dispatch-harness';
import { SECOND, T0, testRuntime } from '../support';

/**
 * `count` hourly schedules first firing at T0, added through the admin API 20 minutes before: their first
 * notes are read from T0 − 14 min (an isolated fire's read-ahead).
 */
async function addDueSchedules(runtime: DispatchRuntime, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, n) => `schedule-${n}`);
  runtime.clock.set(T0 - 20 * MINUTE);
  for (const id of ids) await runtime.add(id, interval(3_600));
  return ids;
}

const sentIds = (runtime: DispatchRuntime) => runtime.sent.map((s) => s.message.job.id).sort();
const fireIds = (ids: readonly string[]) => ids.map((id) => `${id}@${T0}`).sort();

/** A dispatcher that was started but never ran (an accepted Lambda invocation whose sandbox died). */
const lostDispatcher = (requests: DispatchRequest[]) => async (request: DispatchRequest) => {
  requests.push(request);
  return undefined;
};

describe('fan-out of the due shards to dispatchers (ADR 0006)', () => {
  it('a tick leases every shard, splits them over its dispatchers, sends each due fire once and frees the shards', async () => {
    const runtime = dispatchRuntime({ dispatchers: 4 });
    const ids = await addDueSchedules(runtime, 40);
    runtime.clock.set(T0 - 10 * MINUTE);
    const tick = createTickHandler(() => runtime.deps);

    const summary = await tick();

    expect(summary).toMatchObject({
      shardsLeased: 16,
      dispatchersStarted: 4,
      schedulesProcessed: 40,
      errors: 0,
    });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
    // Released: the next tick takes every shard again at once.
    const next = await tick();
    expect(next).toMatchObject({ shardsLeased: 16, schedulesProcessed: 0 });
  });

  it('an overlapping tick takes no shard another tick holds, so nothing is sent twice', async () => {
    const runtime = dispatchRuntime({ dispatchers: 2 });
    const ids = await addDueSchedules(runtime, 30);
    runtime.clock.set(T0 - 10 * MINUTE);
    let releaseFirst: () => void = () => {};
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let started = 0;

    const first = fanOutDispatch(runtime.deps, 'tick-a', async (request) => {
      started += 1;
      await firstHolds;
      return runDispatcher(runtime.deps, request);
    });
    while (started < 2) await new Promise((resolve) => setImmediate(resolve));
    const second = await fanOutDispatch(runtime.deps, 'tick-b', dispatcherOf(runtime.deps));
    releaseFirst();
    const firstTotals = await first;

    expect(second).toMatchObject({ shardsLeased: 0, dispatchersStarted: 0, schedulesProcessed: 0 });
    expect(firstTotals).toMatchObject({ shardsLeased: 16, dispatchersStarted: 2, schedulesProcessed: 30 });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
  });

  it('a dispatcher that never ran leaves its shards leased until they run out; then the next tick sends its fires', async () => {
    const runtime = dispatchRuntime({ dispatchers: 3 });
    const ids = await addDueSchedules(runtime, 20);
    runtime.clock.set(T0 - 10 * MINUTE);
    const requests: DispatchRequest[] = [];
    const dispatchers = dispatcherOf(runtime.deps);

    const lost = await fanOutDispatch(runtime.deps, 'tick-a', lostDispatcher(requests));
    runtime.clock.advance(40 * SECOND);
    const whileHeld = await fanOutDispatch(runtime.deps, 'tick-b', dispatchers);
    runtime.clock.set(requests[0]?.leaseUntil ?? 0);
    const atTheEnd = await fanOutDispatch(runtime.deps, 'tick-c', dispatchers);
    runtime.clock.advance(1);
    const after = await fanOutDispatch(runtime.deps, 'tick-d', dispatchers);

    expect(lost).toMatchObject({ shardsLeased: 16, dispatchersStarted: 3 });
    expect(requests.map((request) => request.shards.length)).toEqual([6, 5, 5]);
    expect(requests[0]?.leaseUntil).toBe(T0 - 10 * MINUTE + runtime.deps.config.tickBudgetMs + 10 * SECOND);
    expect(whileHeld.shardsLeased).toBe(0);
    expect(atTheEnd.shardsLeased).toBe(0);
    expect(after).toMatchObject({ shardsLeased: 16, schedulesProcessed: 20 });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
  });

  it('a dispatcher that cannot be started gives its shards back for the next tick at once', async () => {
    const runtime = dispatchRuntime({ dispatchers: 2 });
    const ids = await addDueSchedules(runtime, 10);
    runtime.clock.set(T0 - 10 * MINUTE);

    const failed = await fanOutDispatch(runtime.deps, 'tick-a', async () => {
      throw new Error('Lambda throttled the invocation');
    });
    const next = await fanOutDispatch(runtime.deps, 'tick-b', dispatcherOf(runtime.deps));

    expect(failed).toMatchObject({
      shardsLeased: 16,
      dispatchersStarted: 0,
      errors: 2,
      schedulesProcessed: 0,
    });
    expect(next).toMatchObject({ shardsLeased: 16, schedulesProcessed: 10 });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
  });

  it('a dispatcher sends the due fires of its own shards only, and releases them', async () => {
    // Prepare: the dispatcher runs 3 s before the fires: it sends them at once (no send phases to wait for)
    const runtime = dispatchRuntime();
    const ids = await addDueSchedules(runtime, 40);
    runtime.clock.set(T0 - 3 * SECOND);
    const now = runtime.clock.now();
    for (const shard of [2, 9]) {
      await runtime.store.leaseDueShard({ shard, owner: 'tick-a', now, leaseMs: 50 * SECOND });
    }

    const summary = await createDispatcherHandler(() => runtime.deps)({
      owner: 'tick-a',
      shards: [2, 9],
      leaseUntil: now + 50 * SECOND,
    });

    const mine = ids.filter((id) => [2, 9].includes(shardOf(id, 16)));
    expect(mine.length).toBeGreaterThan(0);
    expect(summary).toMatchObject({ schedulesProcessed: mine.length, expired: false, shards: [2, 9] });
    expect(sentIds(runtime)).toEqual(fireIds(mine));
    expect(await runtime.store.leaseDueShard({ shard: 9, owner: 'tick-b', now, leaseMs: SECOND })).toBe(
      now + SECOND,
    );
  });

  it('a dispatcher started after its leases nearly ran out reads nothing and leaves the shards to a later tick', async () => {
    const runtime = dispatchRuntime();
    await addDueSchedules(runtime, 5);
    runtime.clock.set(T0 - 3 * SECOND);
    const now = runtime.clock.now();

    const summary = await createDispatcherHandler(() => runtime.deps)({
      owner: 'tick-a',
      shards: [0, 1, 2, 3],
      leaseUntil: now + 10 * SECOND,
    });

    expect(summary).toMatchObject({ expired: true, schedulesProcessed: 0 });
    expect(runtime.sent).toEqual([]);
  });

  it('the dispatcher refuses an event that is not a dispatch request, naming the fields', async () => {
    const runtime = testRuntime();

    await expect(createDispatcherHandler(() => runtime.deps)({ shards: [1_000] })).rejects.toThrow(
      /owner must be .*; shards must be a list of distinct whole numbers from 0 to 999/,
    );
  });
});
