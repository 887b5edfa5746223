import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { leaseFreeShards } from '../../../lib/runtime/fan-out/lease-shards';
import { shardLeaseMs } from '../../../lib/runtime/fan-out/run-dispatcher';
import { createDispatcherHandler } from '../../../lib/runtime/handlers/dispatcher';
import { createTestTable } from '../../support/dynamodb';
import { SECOND, scheduleDefinition, T0, testRuntime } from '../support';

/**
 * ADR 0006, "Changing the shard count": while a deploy raises the count, a tick of the new code may
 * hand shards the old dispatchers do not know to an old dispatcher still running.
 */
describe('a dispatcher of an older deploy given shards of a raised shard count (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('dispatches every schedule of its shards, those beyond its own count too', async () => {
    // Prepare: schedules written under 8 shards; a new tick leases all 8
    const table = await createTestTable('shard-raise');
    drop = () => table.drop();
    const raised = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 8 });
    const older = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const ids = Array.from({ length: 40 }, (_, n) => `s-${n}`);
    for (const id of ids) {
      await raised.addSchedule({
        schedule: scheduleDefinition(id),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: T0 - 60 * SECOND,
      });
    }
    const runtime = testRuntime({ dispatchers: 2 });
    runtime.clock.set(T0 - 10 * SECOND);
    const leased = await leaseFreeShards(raised, {
      owner: 'tick-new',
      now: runtime.clock.now(),
      leaseMs: shardLeaseMs(runtime.deps.config),
      logger: runtime.deps.logger,
    });

    // Act: the older dispatcher (4 shards) gets all eight
    const dispatch = createDispatcherHandler(() => ({
      ...runtime.deps,
      scheduleStore: older,
      jobStore: older,
    }));
    const summary = await dispatch({
      owner: 'tick-new',
      shards: leased.shards,
      leaseUntil: leased.leaseUntil,
    });

    // Assess: every schedule's first fire went out, and each is due again in a shard both counts read
    expect(leased.shards).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(summary).toMatchObject({ schedulesProcessed: 40, errors: 0 });
    const firstFires = runtime.queue.sent.filter((message) => message.job.fireTime === T0);
    expect(firstFires.map((message) => message.job.scheduleId).sort()).toEqual([...ids].sort());
    const again = await older.readDueSchedules({ now: T0, dueBefore: T0 + 3_600 * SECOND, limit: 100 });
    expect(again).toHaveLength(40);
  });
});
