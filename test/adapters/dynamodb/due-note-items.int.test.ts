import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CapacityMeter } from '../../../bench/support/capacity-meter';
import { itemSizeBytes } from '../../../bench/support/item-size';
import type { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { dueNotesPartition, shardOf, ttlSeconds } from '../../../lib/adapters/dynamodb/table-design';
import type { DueNoteEntry } from '../../../lib/core/model/due-note';
import { bucketOf, bucketStart, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { NOTE_RETENTION_MS } from '../../../lib/core/ports/due-notes';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { meteredStore, writeUnitsOf } from '../../support/metered-store';
import { addActive, MINUTE, T0 } from '../store-fixtures';

const SHARDS = 4;
const B0 = bucketOf(DEFAULT_NOTE_GRID, T0);

describe('due note items in DynamoDB (ADR 0007): shared items billed by size, and the writes of a chain', () => {
  let table: TestTable;
  let meter: CapacityMeter;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('due-notes');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    ({ store, meter } = meteredStore(table, SHARDS));
  });
  /** The write units of `call` alone. */
  const units = async (call: () => Promise<unknown>) => {
    meter.reset();
    await call();
    return writeUnitsOf(meter);
  };
  const itemsOf = async (shard: number, bucket: number) => {
    const output = await table.documentClient.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': dueNotesPartition(shard, bucket) },
      }),
    );
    return output.Items ?? [];
  };

  it('packs a bucket’s notes into items of at most 25 KB, named by writer and sequence, expiring two weeks after the bucket', async () => {
    const ids = Array.from({ length: 2_000 }, (_, n) => `${'long-id-'.repeat(24)}${n}`).filter(
      (id) => shardOf(id, SHARDS) === 1,
    );
    const entry = (scheduleId: string): DueNoteEntry => ({
      scheduleId,
      chain: 'c1',
      nextFireAt: T0 + 5 * MINUTE,
      runs: 1,
      lastFireAt: T0,
    });

    const written = await units(() =>
      store.writeDueNotes({
        writer: 'tick-1',
        notes: ids.map((id) => ({ bucket: B0 + 2, entry: entry(id) })),
        now: T0,
      }),
    );

    const items = await itemsOf(1, B0 + 2);
    const sizes = items.map((item) => itemSizeBytes(item));
    expect(items.map((item) => item.sk)).toEqual(items.map((_, n) => `tick-1#${String(n).padStart(5, '0')}`));
    expect(items.flatMap((item) => item.entries)).toHaveLength(ids.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(25 * 1024);
    expect(Math.min(...sizes.slice(0, -1))).toBeGreaterThan(23 * 1024);
    expect(
      items.every(
        (item) => item.expiresAt === ttlSeconds(bucketStart(DEFAULT_NOTE_GRID, B0 + 3) + NOTE_RETENTION_MS),
      ),
    ).toBe(true);
    expect(written).toEqual({
      all: sizes.reduce((sum, size) => sum + Math.ceil(size / 1024), 0),
      index: 0,
    });
  });

  it('moves a cursor for 1 write unit, and finishes a schedule for 1: no index entry of it moves', async () => {
    const added = await units(() => addActive(store, 'hourly'));

    const moved = await units(() => store.moveNoteCursor(0, B0));
    const finished = await units(() =>
      store.finishSchedule({ id: 'hourly', chain: 'c1', lastFireAt: T0, runs: 1 }),
    );

    expect(moved).toEqual({ all: 1, index: 0 });
    expect(finished).toEqual({ all: 1, index: 0 });
    expect(await store.getSchedule('hourly')).toMatchObject({ nextFireAt: null, lastFireAt: T0 });
    // The item, its `by-kind` entry and its chain's first note, in one transaction (2 units per KB and item).
    expect(added).toEqual({ all: 6, index: 2 });
  });
});
