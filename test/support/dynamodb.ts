import {
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { storeClient } from '../../lib/adapters/dynamodb/client';
import { createTableInput, TTL_ATTRIBUTE } from '../../lib/adapters/dynamodb/table-design';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/dynamodb-local';

export interface TestTable {
  tableName: string;
  client: DynamoDBClient;
  documentClient: DynamoDBDocumentClient;
  /** Deletes the table and closes the client. */
  drop(): Promise<void>;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Throws unless `endpoint` is a local address: tests must never reach real AWS. */
export function assertLocalEndpoint(endpoint: string | undefined): string {
  let host = '';
  try {
    host = endpoint ? new URL(endpoint).hostname : '';
  } catch {
    // reported below
  }
  if (!LOCAL_HOSTS.has(host)) {
    throw new Error(
      `refusing to run tests against '${endpoint ?? '(no endpoint)'}': only localhost/127.0.0.1 is allowed`,
    );
  }
  return endpoint as string;
}

export function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return storeClient({
    endpoint: assertLocalEndpoint(endpoint),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
}

/** A table of its own for the calling test file (unique name), created with the production design and ACTIVE. */
export async function createTestTable(
  prefix = 'test',
  endpoint = inject('dynamodbEndpoint'),
): Promise<TestTable> {
  const client = localDynamoDbClient(endpoint);
  const tableName = `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  const documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return {
    tableName,
    client,
    documentClient,
    async drop() {
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      client.destroy();
    },
  };
}

/** Deletes the items whose TTL attribute has passed by `now` (ms), as DynamoDB's TTL would; Local never does. */
export async function deleteExpiredItems(table: TestTable, now: number): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.documentClient.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#ttl <= :now',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      await table.documentClient.send(
        new DeleteCommand({ TableName: table.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
