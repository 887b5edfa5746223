import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
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
  const server: FauxqsServer = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${server.port}`;
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
  return new SQSClient({
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
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqUrl = dlq.QueueUrl ?? '';
  const dlqArn = await queueArn(client, dlqUrl);
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        ...(options.maximumMessageSizeBytes
          ? { MaximumMessageSize: String(options.maximumMessageSizeBytes) }
          : {}),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: options.maxReceiveCount ?? 3,
        }),
      },
    }),
  );
  const queueUrl = queue.QueueUrl ?? '';
  return { queueUrl, queueArn: await queueArn(client, queueUrl), dlqUrl };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const output = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return output.Attributes?.QueueArn ?? '';
}
