import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { withoutSdkLogging } from '../sdk-logging';

/**
 * The DynamoDB client for `DynamoDbStore`, configured from `config` and the environment. The store is
 * the one layer that retries (retry.ts: it also knows which cancelled transactions are worth another
 * try), so the SDK sends each request once: the SDK's own 4 attempts under the store's 6 tries would
 * make up to 24 requests, and 20 s of backoff, per call under throttling. The SDK's logging step is left
 * out (`withoutSdkLogging`).
 */
export function storeClient(config: DynamoDBClientConfig = {}): DynamoDBClient {
  return withoutSdkLogging(new DynamoDBClient({ ...config, maxAttempts: 1 }));
}
