import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { storeClient } from '../../../lib/adapters/dynamodb/client';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { DEFAULT_RETRY_POLICY } from '../../../lib/adapters/dynamodb/retry';
import { taskCounterKey } from '../../../lib/adapters/dynamodb/table-design';
import { StoreUnavailableError } from '../../../lib/core/errors';

const OFFLINE = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const TABLE = 'sundial';

function throttlingError(): Error {
  const error = new Error('The level of configured provisioned throughput for the table was exceeded');
  error.name = 'ProvisionedThroughputExceededException';
  return Object.assign(error, { $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

type Answer = (input: Record<string, unknown>) => Record<string, unknown>;

/**
 * Answers each command (by its name, e.g. `QueryCommand`) with `answers[name]` before it leaves the
 * client, in the document client's plain form; counts the requests of each command.
 */
function answeringClient(answers: Record<string, Answer>): {
  client: DynamoDBClient;
  requests: Map<string, number>;
} {
  const client = storeClient(OFFLINE);
  const requests = new Map<string, number>();
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const command = String(context.commandName);
      requests.set(command, (requests.get(command) ?? 0) + 1);
      const answer = answers[command];
      if (!answer) throw new Error(`no answer for ${command}`);
      return { output: { $metadata: {}, ...answer(args.input as Record<string, unknown>) }, response: {} };
    },
    { step: 'initialize', name: 'answerWithoutNetwork' },
  );
  return { client, requests };
}

/** One counter item in the kind index; what BatchGetItem answers for it is up to the test. */
function counterStore(batchGet: Answer) {
  const sleeps: number[] = [];
  const { client, requests } = answeringClient({
    QueryCommand: () => ({ Items: [taskCounterKey('report')] }),
    BatchGetItemCommand: batchGet,
  });
  const store = new DynamoDbStore({
    client,
    tableName: TABLE,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { store, requests, sleeps };
}

function allUnprocessed(input: Record<string, unknown>) {
  return { Responses: { [TABLE]: [] }, UnprocessedKeys: input.RequestItems };
}

describe('DynamoDB store retries', () => {
  it('tries a throttled request 6 times in all (one retry layer, not the SDK on top), then raises StoreUnavailableError', async () => {
    // Prepare: every request that would go out on the wire is throttled, and counted there
    const client = storeClient(OFFLINE);
    let sent = 0;
    client.middlewareStack.add(
      () => async () => {
        sent += 1;
        throw throttlingError();
      },
      { step: 'deserialize', name: 'throttleEveryAttempt' },
    );
    const sleeps: number[] = [];
    const store = new DynamoDbStore({ client, tableName: TABLE, sleep: async (ms) => void sleeps.push(ms) });

    // Act
    const failure = await store.getSchedule('nightly').catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).cause).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(sent).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(sleeps).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
  });

  it('reads keys that BatchGetItem left unprocessed again, after a backoff, until every item is read', async () => {
    // Prepare: the first request reads nothing (throttled reads come back as unprocessed keys)
    let batchGets = 0;
    const { store, requests, sleeps } = counterStore((input) => {
      batchGets += 1;
      if (batchGets === 1) return allUnprocessed(input);
      return { Responses: { [TABLE]: [{ ...taskCounterKey('report'), running: 2 }] } };
    });

    // Act
    const counts = await store.runningCounts();

    // Assess
    expect(counts).toEqual(new Map([['report', 2]]));
    expect(requests.get('BatchGetItemCommand')).toBe(2);
    expect(sleeps).toHaveLength(1);
  });

  it('gives up with StoreUnavailableError after 6 requests in all when keys stay unprocessed, backing off between them', async () => {
    // Prepare
    const { store, requests, sleeps } = counterStore(allUnprocessed);

    // Act
    const failure = await store.runningCounts().catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(String((failure as Error).cause)).toContain('1 key still unprocessed by BatchGetItem');
    expect(requests.get('BatchGetItemCommand')).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(sleeps).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
    const { baseDelayMs, maxDelayMs } = DEFAULT_RETRY_POLICY;
    sleeps.forEach((ms, index) => {
      expect(ms).toBeLessThanOrEqual(Math.min(maxDelayMs, baseDelayMs * 2 ** index));
    });
  });

  it('counts throttled BatchGetItem requests and ones that left keys unprocessed towards the same 6 requests', async () => {
    // Prepare: requests are throttled and leave keys unprocessed by turns
    let batchGets = 0;
    const { store, requests } = counterStore((input) => {
      batchGets += 1;
      if (batchGets % 2 === 1) throw throttlingError();
      return allUnprocessed(input);
    });

    // Act
    const failure = await store.runningCounts().catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(requests.get('BatchGetItemCommand')).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });
});
