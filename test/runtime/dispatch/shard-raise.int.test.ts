import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { createTestTable } from '../../support/dynamodb';
import { T0 } from '../support';
import { dispatchRuntime, expectEveryFireOnce, interval, MINUTE } from './dispatch-harness';

const IDS = Array.from({ length: 24 }, (_, n) => `s-${n}`);
const TRIGGER = interval(30);

/**
 * ADR 0007 and 0008 with ADR 0006's "Changing the shard count": schedules on their chains under 4 shards,
 * then a deploy raises the count to 8. A successor note of a schedule now lands in its shard under 8,
 * which may never have had a cursor: its writer creates one first, or the note would never be read.
 */
describe('schedules on their chains when the shard count is raised (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  async function onChainsUnderFourShards() {
    const table = await createTestTable('chains-raise');
    drop = () => table.drop();
    const storeOf = (shards: number) =>
      new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards });
    const before = storeOf(4);
    const runtime = dispatchRuntime(
      { shards: 4, dispatchers: 4 },
      { scheduleStore: before, jobStore: before },
    );
    runtime.clock.set(T0 - 5 * MINUTE);
    for (const id of IDS) await runtime.add(id, TRIGGER);
    await runtime.tickEveryMinuteUntil(T0 + 3 * MINUTE);
    const raised = storeOf(8);
    const moving = IDS.filter((id) => shardOf(id, 8) >= 4);
    const raise = (config: { dispatchers: number }) => {
      runtime.deps.config = { ...runtime.deps.config, shards: 8, ...config };
      runtime.deps.scheduleStore = raised;
      runtime.deps.jobStore = raised;
    };
    return { runtime, raised, moving, raise };
  }

  it('sends every fire once the count is raised, the new shards getting their cursors before their first note', async () => {
    // Prepare: on their chains under 4 shards; some ids belong to shards 4–7 under 8
    const { runtime, raised, moving, raise } = await onChainsUnderFourShards();
    expect(moving.length).toBeGreaterThan(0);

    // Act: 8 shards, 8 dispatchers, for ten minutes
    raise({ dispatchers: 8 });
    await runtime.tickEveryMinuteUntil(T0 + 13 * MINUTE);

    // Assess
    expect(runtime.summaries.every((summary) => summary.errors === 0)).toBe(true);
    for (const id of IDS) expectEveryFireOnce(runtime.sentOf(id), TRIGGER, T0 + 13 * MINUTE);
    for (const shard of new Set(moving.map((id) => shardOf(id, 8)))) {
      expect(await raised.readNoteCursor(shard)).toBeDefined();
    }
  });

  it('sends every fire when a new shard is held by a lease of the old deploy for a minute', async () => {
    // Prepare
    const { runtime, raised, moving, raise } = await onChainsUnderFourShards();
    const held = shardOf(moving[0] as string, 8);
    const now = runtime.clock.now();
    expect(
      await raised.leaseDueShard({ shard: held, owner: 'tick-old', now, leaseMs: 90_000 }),
    ).toBeDefined();

    // Act: 8 shards, two dispatchers
    raise({ dispatchers: 2 });
    await runtime.tickEveryMinuteUntil(T0 + 13 * MINUTE);

    // Assess
    expect(runtime.summaries.every((summary) => summary.errors === 0)).toBe(true);
    for (const id of IDS) expectEveryFireOnce(runtime.sentOf(id), TRIGGER, T0 + 13 * MINUTE);
  });
});
