import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { StoreUnavailableError } from '../../../lib/core/errors';
import type { DueNoteEntry } from '../../../lib/core/model/due-note';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import { createTestTable, localDynamoDbClient, type TestTable } from '../../support/dynamodb';
import { MINUTE, T0 } from '../store-fixtures';

const B0 = bucketOf(DEFAULT_NOTE_GRID, T0);
const STALL_MS = 600;
const TIMEOUT_MS = 150;

const entry: DueNoteEntry = {
  scheduleId: 'hourly',
  chain: 'c1',
  nextFireAt: T0 + 5 * MINUTE,
  runs: 1,
  lastFireAt: T0,
};
const note = { bucket: B0 + 2, entry };

/** A client whose PutItem requests stall: before they are sent, or after they applied (the answer late). */
function stallingClient(where: 'before-send' | 'after-apply'): DynamoDBClient {
  const client = localDynamoDbClient(inject('dynamodbEndpoint'));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'PutItemCommand') return next(args);
      if (where === 'before-send') await sleep(STALL_MS);
      const output = await next(args);
      if (where === 'after-apply') await sleep(STALL_MS);
      return output;
    },
    { step: 'finalizeRequest', name: 'stallPuts' },
  );
  return client;
}

/**
 * A note counted as written must have landed before its bucket is read (ADR 0007, placement margin): a
 * write of due notes that takes too long is given up, and its writer writes the notes again.
 */
describe('a write of due notes that takes too long is given up', () => {
  let table: TestTable;
  const clients: DynamoDBClient[] = [];
  const storeWith = (client: DynamoDBClient) => {
    clients.push(client);
    return new DynamoDbStore({
      client,
      tableName: table.tableName,
      shards: 1,
      noteWriteTimeoutMs: TIMEOUT_MS,
    });
  };

  beforeAll(async () => {
    table = await createTestTable('note-timeout');
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await table.drop();
  });

  const bucketNotes = () =>
    storeWith(localDynamoDbClient(inject('dynamodbEndpoint'))).readDueNotes({
      shard: 0,
      afterBucket: B0,
      now: T0 + 10 * MINUTE,
      limit: 10,
    });

  it('throws StoreUnavailableError, and a put still waiting to be sent is never sent', async () => {
    const store = storeWith(stallingClient('before-send'));

    await expect(store.writeDueNotes({ writer: 'tick-a', notes: [note], now: T0 })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await sleep(STALL_MS + 200);

    expect((await bucketNotes()).notes).toEqual([]);
  });

  it('may land after it was given up: written again by another writer, the two read as one live note', async () => {
    const slow = storeWith(stallingClient('after-apply'));
    const healthy = storeWith(localDynamoDbClient(inject('dynamodbEndpoint')));

    await expect(slow.writeDueNotes({ writer: 'tick-b', notes: [note], now: T0 })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await healthy.writeDueNotes({ writer: 'tick-c', notes: [note], now: T0 });
    await sleep(STALL_MS);

    expect((await bucketNotes()).notes).toEqual([note, note]);
    const live = await healthy.findLiveNotes({
      shard: healthy.noteShardOf(entry.scheduleId),
      schedules: [entry],
      buckets: [B0 + 2],
    });
    expect(live.get(entry.scheduleId)).toEqual(note);
  });
});
