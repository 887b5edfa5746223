import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import type { DispatchRequest } from '../../../lib/core/ports/dispatcher-invoker';
import { fanOutDispatch } from '../../../lib/runtime/fan-out/fan-out-dispatch';
import { shardLeaseMs } from '../../../lib/runtime/fan-out/run-dispatcher';
import { createTestTable } from '../../support/dynamodb';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

const SCHEDULES = 60;
const EVERY = 30 * SECOND;

describe('overlapping ticks with dispatchers (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('never send a fire twice, never skip one, and a lost dispatcher is made up for once its shards run out', async () => {
    const table = await createTestTable('fan-out');
    drop = () => table.drop();
    const store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const runtime = testRuntime({ dispatchers: 2, acquireBatchSize: 7 });
    const deps = { ...runtime.deps, scheduleStore: store, jobStore: store };
    const ids = Array.from({ length: SCHEDULES }, (_, n) => `every-30s-${n}`);
    for (const id of ids) {
      await store.addSchedule({
        schedule: scheduleDefinition(id, { coalesce: 'all' }),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: T0 - 60 * SECOND,
      });
    }
    const at = (now: number) => runtime.clock.set(now);
    const lost: DispatchRequest[] = [];

    // Two ticks at once, twice; then a tick whose dispatchers never run; then one once their leases ran out.
    at(T0 - 10 * SECOND);
    const first = await Promise.all([fanOutDispatch(deps, 'tick-a'), fanOutDispatch(deps, 'tick-b')]);
    at(T0 + 20 * SECOND);
    const second = await Promise.all([fanOutDispatch(deps, 'tick-c'), fanOutDispatch(deps, 'tick-d')]);
    at(T0 + 50 * SECOND);
    const dropped = await fanOutDispatch(deps, 'tick-e', async (request) => {
      lost.push(request);
      return undefined;
    });
    const whileLeased = await fanOutDispatch(deps, 'tick-f');
    const afterLeases = T0 + 50 * SECOND + shardLeaseMs(deps.config) + 1;
    at(afterLeases);
    const recovered = await fanOutDispatch(deps, 'tick-g');

    // Every schedule: each fire up to the last tick's window (lookahead 90 s), sent exactly once.
    const window = afterLeases + 90 * SECOND;
    const fireTimes = Array.from({ length: Math.floor((window - T0) / EVERY) + 1 }, (_, n) => T0 + n * EVERY);
    const expected = ids.flatMap((id) => fireTimes.map((fire) => `${id}@${fire}`)).sort();
    const sent = runtime.queue.sent.map((message) => message.job.id).sort();
    expect(sent).toEqual(expected);
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
