import { describe, expect, it } from 'vitest';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import type { DispatchRequest } from '../../../lib/core/ports/dispatcher-invoker';
import { fanOutDispatch } from '../../../lib/runtime/fan-out/fan-out-dispatch';
import { createDispatcherHandler } from '../../../lib/runtime/handlers/dispatcher';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

type Runtime = ReturnType<typeof testRuntime>;

async function addDueSchedules(runtime: Runtime, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, n) => `schedule-${n}`);
  for (const id of ids) {
    await runtime.store.addSchedule({
      schedule: scheduleDefinition(id, {
        trigger: { type: 'interval', seconds: 3600, start_at: new Date(T0).toISOString() },
      }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: runtime.clock.now(),
    });
  }
  return ids;
}

const sentIds = (runtime: Runtime) => runtime.queue.sent.map((message) => message.job.id).sort();
const fireIds = (ids: readonly string[]) => ids.map((id) => `${id}@${T0}`).sort();

/** A dispatcher that was started but never ran (an accepted Lambda invocation whose sandbox died). */
const lostDispatcher = (requests: DispatchRequest[]) => async (request: DispatchRequest) => {
  requests.push(request);
  return undefined;
};

describe('fan-out of the due index to dispatchers (ADR 0006)', () => {
  it('a tick leases every shard, splits them over its dispatchers, sends each due fire once and frees the shards', async () => {
    const runtime = testRuntime({ dispatchers: 4 });
    runtime.clock.set(T0 - 10 * SECOND);
    const ids = await addDueSchedules(runtime, 40);

    const summary = await createTickHandler(() => runtime.deps)();

    expect(summary).toMatchObject({
      shardsLeased: 16,
      dispatchersStarted: 4,
      schedulesProcessed: 40,
      errors: 0,
    });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
    // Released: the next tick takes every shard again at once.
    const next = await createTickHandler(() => runtime.deps)();
    expect(next).toMatchObject({ shardsLeased: 16, schedulesProcessed: 0 });
  });

  it('an overlapping tick takes no shard another tick holds, so nothing is sent twice', async () => {
    const runtime = testRuntime({ dispatchers: 2 });
    runtime.clock.set(T0 - 10 * SECOND);
    const ids = await addDueSchedules(runtime, 30);
    let releaseFirst: () => void = () => {};
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let started = 0;

    const first = fanOutDispatch(runtime.deps, 'tick-a', async (request) => {
      started += 1;
      await firstHolds;
      const handler = createDispatcherHandler(() => runtime.deps);
      return { ...(await handler(request)), fireLagMs: [], finished: [] };
    });
    while (started < 2) await new Promise((resolve) => setImmediate(resolve));
    const second = await fanOutDispatch(runtime.deps, 'tick-b');
    releaseFirst();
    const firstTotals = await first;

    expect(second).toMatchObject({ shardsLeased: 0, dispatchersStarted: 0, schedulesProcessed: 0 });
    expect(firstTotals).toMatchObject({ shardsLeased: 16, dispatchersStarted: 2, schedulesProcessed: 30 });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
  });

  it('a dispatcher that never ran leaves its shards leased until they run out; then the next tick sends its fires', async () => {
    const runtime = testRuntime({ dispatchers: 3 });
    runtime.clock.set(T0 - 60 * SECOND);
    const ids = await addDueSchedules(runtime, 20);
    const requests: DispatchRequest[] = [];

    const lost = await fanOutDispatch(runtime.deps, 'tick-a', lostDispatcher(requests));
    runtime.clock.advance(40 * SECOND);
    const whileHeld = await fanOutDispatch(runtime.deps, 'tick-b');
    runtime.clock.set(requests[0]?.leaseUntil ?? 0);
    const atTheEnd = await fanOutDispatch(runtime.deps, 'tick-c');
    runtime.clock.advance(1);
    const after = await fanOutDispatch(runtime.deps, 'tick-d');

    expect(lost).toMatchObject({ shardsLeased: 16, dispatchersStarted: 3 });
    expect(requests.map((request) => request.shards.length)).toEqual([6, 5, 5]);
    expect(requests[0]?.leaseUntil).toBe(T0 - 60 * SECOND + runtime.deps.config.tickBudgetMs + 10 * SECOND);
    expect(whileHeld.shardsLeased).toBe(0);
    expect(atTheEnd.shardsLeased).toBe(0);
    expect(after).toMatchObject({ shardsLeased: 16, schedulesProcessed: 20 });
    expect(sentIds(runtime)).toEqual(fireIds(ids));
  });

  it('a dispatcher that cannot be started gives its shards back for the next tick at once', async () => {
    const runtime = testRuntime({ dispatchers: 2 });
    runtime.clock.set(T0 - 10 * SECOND);
    const ids = await addDueSchedules(runtime, 10);

    const failed = await fanOutDispatch(runtime.deps, 'tick-a', async () => {
      throw new Error('Lambda throttled the invocation');
    });
    const next = await fanOutDispatch(runtime.deps, 'tick-b');

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
    const runtime = testRuntime();
    runtime.clock.set(T0 - 10 * SECOND);
    const ids = await addDueSchedules(runtime, 40);
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
    const runtime = testRuntime();
    runtime.clock.set(T0 - 10 * SECOND);
    await addDueSchedules(runtime, 5);
    const now = runtime.clock.now();

    const summary = await createDispatcherHandler(() => runtime.deps)({
      owner: 'tick-a',
      shards: [0, 1, 2, 3],
      leaseUntil: now + 10 * SECOND,
    });

    expect(summary).toMatchObject({ expired: true, schedulesProcessed: 0 });
    expect(runtime.queue.sent).toEqual([]);
  });

  it('the dispatcher refuses an event that is not a dispatch request, naming the fields', async () => {
    const runtime = testRuntime();

    await expect(createDispatcherHandler(() => runtime.deps)({ shards: [1_000] })).rejects.toThrow(
      /owner must be .*; shards must be a list of distinct whole numbers from 0 to 999/,
    );
  });
});
