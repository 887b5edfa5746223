import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapacityCounter } from '../../../lib/adapters/dynamodb/capacity';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { itemSizeBytes } from '../../../lib/adapters/dynamodb/item-size';
import { dueNotesPartition, shardOf, ttlSeconds } from '../../../lib/adapters/dynamodb/table-design';
import type { DueNoteEntry } from '../../../lib/core/model/due-note';
import { bucketOf, bucketStart, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { NOTE_RETENTION_MS } from '../../../lib/core/ports/due-notes';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { conversionOf, definition, MINUTE, SECOND, T0 } from '../store-fixtures';

const SHARDS = 4;
const B0 = bucketOf(DEFAULT_NOTE_GRID, T0);

describe('due note items in DynamoDB (ADR 0007): shared items billed by size, cursors and conversions by the write', () => {
  let table: TestTable;
  let meter: CapacityCounter;
  let store: DynamoDbStore;

  beforeAll(async () => {
    table = await createTestTable('due-notes');
  });
  afterAll(() => table.drop());
  beforeEach(() => {
    meter = new CapacityCounter();
    store = new DynamoDbStore({
      client: table.documentClient,
      tableName: table.tableName,
      shards: SHARDS,
      capacityMeter: meter,
    });
  });
  const units = (operation: string) => {
    const totals = meter.snapshot()[operation];
    return { all: totals?.writeUnits, index: totals?.indexWriteUnits };
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
      version: 1,
      createdAt: T0,
      nextFireAt: T0 + 5 * MINUTE,
      runs: 1,
      lastFireAt: T0,
    });

    await store.writeDueNotes({
      writer: 'tick-1',
      notes: ids.map((id) => ({ bucket: B0 + 2, entry: entry(id) })),
      now: T0,
    });

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
    expect(units('writeDueNotes')).toEqual({
      all: sizes.reduce((sum, size) => sum + Math.ceil(size / 1024), 0),
      index: 0,
    });
  });

  it('moves a cursor for 1 write unit, and converts a schedule for 2: its item and the due index entry it leaves', async () => {
    await store.addSchedule({
      schedule: definition('hourly'),
      nextFireAt: T0 + 10 * SECOND,
      conflictPolicy: 'exception',
      now: T0,
    });

    await store.moveNoteCursor(0, B0);
    const converted = await store.convertScheduleToNotes(conversionOf('hourly'));

    expect(converted).toBe(true);
    expect(units('moveNoteCursor')).toEqual({ all: 1, index: 0 });
    expect(units('convertScheduleToNotes')).toEqual({ all: 2, index: 1 });
  });
});
