import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { INDEX_NAMES, TASK_PREFIX, taskCounterKey } from '../../lib/adapters/dynamodb/table-design';
import { COUNTER_REPAIR_SETTLE_MS } from '../../lib/core/ports/counter-repair';
import { createTestTable, type TestTable } from '../support/dynamodb';
import { limitedClaim, MINUTE, SECOND, SUCCESS, T0 } from './store-fixtures';

type Send = (command: unknown) => Promise<Record<string, unknown>>;

/** Hooks into the store's requests: to run other store calls in the middle of a repair. */
interface Interleaving {
  /** After the consistent read of the counters (before the running index is read). */
  afterCounterRead?: () => Promise<void>;
  /** What the running index answers (to simulate a replica that has not caught up). */
  runningIndexPage?: (page: Record<string, unknown>) => Record<string, unknown>;
  /** Before the repair's first write to a counter (after it read the running index). */
  beforeCounterWrite?: () => Promise<void>;
}

/** A document client whose `send` runs each hook of `interleaving` once, at its point. */
function interleaved(client: DynamoDBDocumentClient, interleaving: Interleaving): DynamoDBDocumentClient {
  const send = client.send.bind(client) as Send;
  const pending = { ...interleaving };
  const once = async (hook: 'afterCounterRead' | 'beforeCounterWrite') => {
    const run = pending[hook];
    delete pending[hook];
    await run?.();
  };
  const intercepting: Send = async (command) => {
    if (command instanceof UpdateCommand && String(command.input.Key?.pk).startsWith(TASK_PREFIX)) {
      await once('beforeCounterWrite');
    }
    const output = await send(command);
    const counterRead =
      command instanceof BatchGetCommand &&
      Object.values(command.input.RequestItems ?? {}).some((request) =>
        request.Keys?.some((key) => String(key.pk).startsWith(TASK_PREFIX)),
      );
    if (counterRead) await once('afterCounterRead');
    if (command instanceof QueryCommand && command.input.IndexName === INDEX_NAMES.running) {
      return pending.runningIndexPage ? pending.runningIndexPage(output) : output;
    }
    return output;
  };
  return Object.assign(Object.create(client) as DynamoDBDocumentClient, { send: intercepting });
}

describe('DynamoDB counter repair racing claims and finishes', () => {
  let table: TestTable;
  let store: DynamoDbStore;
  const racingStore = (interleaving: Interleaving) =>
    new DynamoDbStore({
      client: interleaved(table.documentClient, interleaving),
      tableName: table.tableName,
      shards: 4,
    });
  const counter = async () => (await store.runningCounts()).get('limited');

  beforeEach(async () => {
    table = await createTestTable('counter-repair');
    store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName, shards: 4 });
  });
  afterEach(async () => {
    await table.drop();
  });

  it('does not lower a counter when a finish and a claim slip between its reads and its write', async () => {
    await store.claimJob(limitedClaim('a', 1));
    const repair = racingStore({
      afterCounterRead: async () => {
        await store.finishJob({ jobId: 'a', owner: 'w-a', result: SUCCESS, expiresAt: T0 + MINUTE });
      },
      beforeCounterWrite: async () => {
        expect((await store.claimJob(limitedClaim('b', 1))).status).toBe('claimed');
      },
    });

    await repair.repairCounters(T0);
    const pastLimit = await store.claimJob(limitedClaim('c', 1));
    const settled = await store.repairCounters(T0 + COUNTER_REPAIR_SETTLE_MS);

    expect(pastLimit).toEqual({ status: 'no_slot', running: 1 });
    expect(await counter()).toBe(1);
    expect(settled.size).toBe(0);
  });

  it('does not raise a counter from a count that a claim and a finish made stale', async () => {
    await store.claimJob(limitedClaim('a', 2));
    await table.documentClient.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: taskCounterKey('limited'),
        UpdateExpression: 'SET running = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
    const repair = racingStore({
      afterCounterRead: async () => {
        expect((await store.claimJob(limitedClaim('b', 2))).status).toBe('claimed');
      },
      beforeCounterWrite: async () => {
        await store.finishJob({ jobId: 'a', owner: 'w-a', result: SUCCESS, expiresAt: T0 + MINUTE });
      },
    });

    const raced = await repair.repairCounters(T0);
    const countAfterRace = await counter();
    const next = await store.repairCounters(T0 + SECOND);

    expect(raced.size).toBe(0);
    expect(countAfterRace).toBe(0);
    expect(next).toEqual(new Map([['limited', { was: 0, now: 1 }]]));
  });

  it('does not lower a counter from a running index that has not caught up with a claim', async () => {
    await store.claimJob(limitedClaim('a', 1));
    const lagging = racingStore({ runningIndexPage: (page) => ({ ...page, Items: [] }) });

    const whileLagging = await lagging.repairCounters(T0);
    const pastLimit = await store.claimJob(limitedClaim('b', 1));
    const caughtUp = await store.repairCounters(T0 + COUNTER_REPAIR_SETTLE_MS);

    expect(whileLagging.size).toBe(0);
    expect(pastLimit).toEqual({ status: 'no_slot', running: 1 });
    expect(caughtUp.size).toBe(0);
    expect(await counter()).toBe(1);
  });
});
