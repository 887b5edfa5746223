import { CreateTableCommand, type DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storeClient } from '../../lib/adapters/dynamodb/client';
import { createTableInput } from '../../lib/adapters/dynamodb/table-design';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal } from '../../lib/local/dynamodb-local';
import { inParallel } from './parallel';

/** DynamoDB Local for a benchmark run: its endpoint, a plain client and a document client. */
export interface BenchDynamo {
  endpoint: string;
  client: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  /** A new client on the same endpoint (e.g. one with a fault-injecting middleware). */
  newClient(): DynamoDBClient;
  /** A table with the production design (unique name), ACTIVE. */
  newTable(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchDynamo(): Promise<BenchDynamo> {
  const dynamo = await startDynamoDbLocal();
  const newClient = () =>
    storeClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const client = newClient();
  return {
    endpoint: dynamo.endpoint,
    client,
    documents: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    newClient,
    newTable: (prefix) => createTable(client, prefix, createTableInput),
    async stop() {
      client.destroy();
      await dynamo.stop();
    },
  };
}

let tables = 0;

async function createTable(
  client: DynamoDBClient,
  prefix: string,
  input: (name: string) => ConstructorParameters<typeof CreateTableCommand>[0],
): Promise<string> {
  tables += 1;
  const tableName = `${prefix}-${Date.now().toString(36)}-${tables}`;
  await client.send(new CreateTableCommand(input(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  return tableName;
}

/**
 * The ceiling: plain conditional updates of distinct items of a table without indexes, `concurrency` in
 * flight. Resolves with writes per second.
 */
export async function rawConditionalWrites(
  dynamo: BenchDynamo,
  writes: number,
  concurrency: number,
): Promise<number> {
  const tableName = await createTable(dynamo.client, 'raw', (name) => ({
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
  }));
  const now = Date.now();
  const started = performance.now();
  await inParallel(writes, concurrency, (n) =>
    dynamo.documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: `item-${n}` },
        UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until',
        ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
        ExpressionAttributeValues: { ':owner': 'bench', ':until': now + 60_000, ':now': now },
      }),
    ),
  );
  return writes / ((performance.now() - started) / 1000);
}
