import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { leaseFreeShards } from '../../../lib/runtime/fan-out/lease-shards';
import { shardLeaseMs } from '../../../lib/runtime/fan-out/run-dispatcher';
import { createDispatcherHandler } from '../../../lib/runtime/handlers/dispatcher';
import { createTestTable } from '../../support/dynamodb';
import { dispatchRuntime, interval, MINUTE } from '../dispatch/dispatch-harness';
import { idsAtPhase, SECOND, T0 } from '../support';

/**
 * ADR 0006, "Changing the shard count": while a deploy raises the count, a tick of the new code may
 * hand shards the old dispatchers do not know to an old dispatcher still running. With every schedule
 * on its note chain (ADR 0008), that dispatcher cannot read those shards' notes (its store refuses a
 * shard beyond its count): they wait for the next tick.
 */
describe('a dispatcher of an older deploy given shards of a raised shard count (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  it('dispatches the schedules of its own shards, leaves the notes of the others for the next tick, and loses none', async () => {
    // Prepare: schedules added under 8 shards (their first notes in shards 0–7); a new tick leases all 8
    const table = await createTestTable('shard-raise');
    drop = () => table.drop();
    const raised = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 8 });
    const older = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
    const runtime = dispatchRuntime(
      { shards: 8, dispatchers: 2 },
      { scheduleStore: raised, jobStore: raised },
    );
    // (their chunks start at the grid's boundaries, so the first notes of all are read by then)
    const ids = idsAtPhase('s', 40);
    runtime.clock.set(T0 - 5 * MINUTE);
    for (const id of ids) await runtime.add(id, interval(30));
    runtime.clock.set(T0 - 140 * SECOND);
    const leased = await leaseFreeShards(raised, {
      owner: 'tick-new',
      now: runtime.clock.now(),
      leaseMs: shardLeaseMs(runtime.deps.config),
      logger: runtime.deps.logger,
    });

    // Act: the older dispatcher (4 shards) gets all eight; the next tick is of the new deploy
    const dispatch = createDispatcherHandler(() => ({
      ...runtime.deps,
      config: { ...runtime.deps.config, shards: 4 },
      scheduleStore: older,
      jobStore: older,
    }));
    const summary = await dispatch({
      owner: 'tick-new',
      shards: leased.shards,
      leaseUntil: leased.leaseUntil,
    });
    const byOlder = runtime.sent.map((s) => s.message.job.scheduleId);
    runtime.clock.set(T0 - 80 * SECOND);
    const next = await runtime.tick();

    // Assess: the older one read the shards it knows (their notes' successors go to shards both counts
    // read), could not read the others' cursors and released them; the next tick sent their fires
    const own = ids.filter((id) => shardOf(id, 8) < 4);
    expect(leased.shards).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(summary).toMatchObject({ schedulesProcessed: own.length, errors: 4 });
    expect([...new Set(byOlder)].sort()).toEqual([...own].sort());
    expect(next).toMatchObject({ shardsLeased: 8, schedulesProcessed: ids.length - own.length, errors: 0 });
    const firstFires = runtime.sent.filter((s) => s.message.job.fireTime === T0);
    expect(firstFires.map((s) => s.message.job.scheduleId).sort()).toEqual([...ids].sort());
  });
});
