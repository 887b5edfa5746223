import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import type { DispatchRequest } from '../../../lib/core/ports/dispatcher-invoker';
import { dispatcherOf, fanOutDispatch } from '../../../lib/runtime/fan-out/fan-out-dispatch';
import { shardLeaseMs } from '../../../lib/runtime/fan-out/run-dispatcher';
import { createTestTable } from '../../support/dynamodb';
import { dispatchRuntime, fireTimes, interval, MINUTE } from '../dispatch/dispatch-harness';
import { idsAtPhase, SECOND, T0 } from '../support';

const SCHEDULES = 60;
const EVERY_30S = interval(30);

describe('overlapping ticks with dispatchers (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('never send a fire twice, never skip one, and a lost dispatcher is made up for once its shards run out', async () => {
    const table = await createTestTable('fan-out');
    drop = () => table.drop();
    const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const runtime = dispatchRuntime({ shards: 4, dispatchers: 2 }, { scheduleStore: store, jobStore: store });
    const { deps } = runtime;
    const ids = idsAtPhase('every-30s', SCHEDULES);
    runtime.clock.set(T0 - 5 * MINUTE);
    for (const id of ids) await runtime.add(id, EVERY_30S);
    const at = (now: number) => runtime.clock.set(now);
    const dispatchers = dispatcherOf(deps);
    const lost: DispatchRequest[] = [];

    // Two ticks at once, twice; then a tick whose dispatchers never run; then one once their leases ran out.
    at(T0 - 140 * SECOND);
    const first = await Promise.all([
      fanOutDispatch(deps, 'tick-a', dispatchers),
      fanOutDispatch(deps, 'tick-b', dispatchers),
    ]);
    at(T0 - 20 * SECOND);
    const second = await Promise.all([
      fanOutDispatch(deps, 'tick-c', dispatchers),
      fanOutDispatch(deps, 'tick-d', dispatchers),
    ]);
    at(T0 + 100 * SECOND);
    const dropped = await fanOutDispatch(deps, 'tick-e', async (request) => {
      lost.push(request);
      return undefined;
    });
    const whileLeased = await fanOutDispatch(deps, 'tick-f', dispatchers);
    at(T0 + 100 * SECOND + shardLeaseMs(deps.config) + 1);
    const recovered = await fanOutDispatch(deps, 'tick-g', dispatchers);

    // Every schedule: each fire of the three chunks read (T0 … T0 + 330 s), sent exactly once
    const expected = ids.flatMap((id) =>
      fireTimes(EVERY_30S, T0, T0 + 330 * SECOND).map((fire) => `${id}@${fire}`),
    );
    const sent = runtime.sent.map((s) => s.message.job.id);
    expect(sent.sort()).toEqual(expected.sort());
    // Each shard went to one of the two overlapping ticks.
    expect(first.reduce((n, t) => n + t.shardsLeased, 0)).toBe(4);
    expect(second.reduce((n, t) => n + t.shardsLeased, 0)).toBe(4);
    expect(first.reduce((n, t) => n + t.schedulesProcessed, 0)).toBe(SCHEDULES);
    expect(dropped).toMatchObject({ shardsLeased: 4, dispatchersStarted: 2 });
    expect(lost.flatMap((request) => request.shards).sort()).toEqual([0, 1, 2, 3]);
    expect(whileLeased).toMatchObject({ shardsLeased: 0, schedulesProcessed: 0 });
    expect(recovered).toMatchObject({ shardsLeased: 4, schedulesProcessed: SCHEDULES, errors: 0 });
  });
});
