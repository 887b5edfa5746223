import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queueClient } from '../../lib/adapters/sqs/client';
import { createQueueWithDeadLetterQueue } from '../../lib/local/local-resources';
import { startSqsEmulator } from '../../lib/local/sqs-emulator';
import { assertLocalEndpoint } from './dynamodb';

const LOCAL_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface LocalSqs {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  client: SQSClient;
  stop(): Promise<void>;
}

/** Starts the SQS emulator on a free port, bound to 127.0.0.1 (about 100 ms). */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server = await startSqsEmulator();
  const { endpoint } = server;
  const client = localSqsClient(endpoint);
  return {
    endpoint,
    client,
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}

/** An SQS client for a local endpoint; refuses anything but localhost. */
export function localSqsClient(endpoint: string): SQSClient {
  return queueClient({
    endpoint: assertLocalEndpoint(endpoint),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
}

export interface TestQueue {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
}

/** A jobs queue with its own DLQ (redrive after `maxReceiveCount` receives), names unique per call. */
export async function createTestQueue(
  client: SQSClient,
  options: {
    maxReceiveCount?: number;
    visibilityTimeoutSeconds?: number;
    maximumMessageSizeBytes?: number;
  } = {},
): Promise<TestQueue> {
  const name = `jobs-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const queue = await createQueueWithDeadLetterQueue(client, {
    name,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
    maxReceiveCount: options.maxReceiveCount ?? 3,
    ...(options.maximumMessageSizeBytes ? { maximumMessageSizeBytes: options.maximumMessageSizeBytes } : {}),
  });
  return { queueUrl: queue.queueUrl, queueArn: queue.queueArn, dlqUrl: queue.deadLetterQueueUrl };
}

/** How many messages a queue holds: visible, received but not yet deleted, and still delayed. */
export async function messagesInQueue(client: SQSClient, queueUrl: string): Promise<number> {
  const counts = [
    'ApproximateNumberOfMessages',
    'ApproximateNumberOfMessagesNotVisible',
    'ApproximateNumberOfMessagesDelayed',
  ] as const;
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...counts] }),
  );
  return counts.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
}
