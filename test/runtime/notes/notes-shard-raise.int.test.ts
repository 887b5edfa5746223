import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { shardOf } from '../../../lib/adapters/dynamodb/table-design';
import { compileTrigger } from '../../../lib/core/triggers';
import type { RuntimeDeps } from '../../../lib/runtime/dependencies';
import { runTick, type TickSummary } from '../../../lib/runtime/tick/run-tick';
import { createTestTable } from '../../support/dynamodb';
import { scheduleDefinition, T0, testRuntime } from '../support';
import { expectEveryFireOnce, interval, MINUTE, type Sent } from './notes-harness';

const IDS = Array.from({ length: 24 }, (_, n) => `s-${n}`);
const TRIGGER = interval(30);

function expectNoFireLost(sent: readonly Sent[]): void {
  for (const id of IDS) {
    expectEveryFireOnce(
      sent.filter((s) => s.message.job.scheduleId === id),
      TRIGGER,
      T0 + 13 * MINUTE,
    );
  }
}

/**
 * ADR 0007 with ADR 0006's "Changing the shard count": schedules go on notes under 4 shards, then a deploy
 * raises the count to 8. A successor note of a schedule now lands in its shard under 8, which may never
 * have had a cursor.
 */
describe('schedules on due notes when the shard count is raised (DynamoDB Local)', () => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
  });

  async function onNotesUnderFourShards() {
    const table = await createTestTable('notes-raise');
    drop = () => table.drop();
    const storeOf = (shards: number) =>
      new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards });
    const before = storeOf(4);
    const runtime = testRuntime({ dueNotes: true, shards: 4 });
    runtime.clock.set(T0 - 2 * MINUTE);
    for (const id of IDS) {
      await before.addSchedule({
        schedule: scheduleDefinition(id, { trigger: TRIGGER, coalesce: 'all' }),
        nextFireAt: compileTrigger(TRIGGER).next(runtime.clock.now()) ?? null,
        conflictPolicy: 'exception',
        now: runtime.clock.now(),
      });
    }
    const sent: Sent[] = [];
    const summaries: TickSummary[] = [];
    const tickUntil = async (deps: RuntimeDeps, until: number) => {
      while (runtime.clock.now() <= until) {
        summaries.push(await runTick(deps, { lastCounterRepairAt: runtime.clock.now() }));
        for (const message of runtime.queue.drain()) sent.push({ at: runtime.clock.now(), message });
        runtime.clock.advance(MINUTE);
      }
    };
    await tickUntil({ ...runtime.deps, scheduleStore: before, jobStore: before }, T0 + 3 * MINUTE);
    const raised = storeOf(8);
    const moving = IDS.filter((id) => shardOf(id, 8) >= 4);
    return { runtime, raised, sent, summaries, tickUntil, moving };
  }

  it('with notes turned off at the same deploy: every fire is still sent', async () => {
    // Prepare: on notes under 4 shards; some ids belong to shards 4–7 under 8
    const { runtime, raised, sent, summaries, tickUntil, moving } = await onNotesUnderFourShards();
    expect(moving.length).toBeGreaterThan(0);

    // Act: 8 shards, notes off, for ten minutes
    runtime.deps.config = { ...runtime.deps.config, shards: 8, dueNotes: false };
    await tickUntil({ ...runtime.deps, scheduleStore: raised, jobStore: raised }, T0 + 13 * MINUTE);

    // Assess: no fire lost, and the new shards their successors went to have cursors
    expect(summaries.every((summary) => summary.errors === 0)).toBe(true);
    expectNoFireLost(sent);
    for (const shard of new Set(moving.map((id) => shardOf(id, 8)))) {
      expect(await raised.readNoteCursor(shard)).toBeDefined();
    }
  });

  it('with notes on and a new shard held by a lease of the old deploy for a minute: every fire is still sent', async () => {
    // Prepare
    const { runtime, raised, sent, summaries, tickUntil, moving } = await onNotesUnderFourShards();
    const held = shardOf(moving[0] as string, 8);
    const now = runtime.clock.now();
    expect(
      await raised.leaseDueShard({ shard: held, owner: 'tick-old', now, leaseMs: 90_000 }),
    ).toBeDefined();

    // Act: 8 shards, two dispatchers
    runtime.deps.config = { ...runtime.deps.config, shards: 8, dispatchers: 2 };
    await tickUntil({ ...runtime.deps, scheduleStore: raised, jobStore: raised }, T0 + 13 * MINUTE);

    // Assess
    expect(summaries.every((summary) => summary.errors === 0)).toBe(true);
    expectNoFireLost(sent);
  });
});
