import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createTableInput } from '../adapters/dynamodb/table-design';

export const LOCAL_TABLE_NAME = 'sundial';
export const LOCAL_QUEUE_NAME = 'sundial-jobs';
/** The queue for critical jobs, polled by workers of its own (as its event source mapping in AWS). */
export const LOCAL_CRITICAL_QUEUE_NAME = 'sundial-jobs-critical';

/** Creates the table (same design as in AWS) unless a previous run in the same data dir did. */
export async function ensureLocalTable(client: DynamoDBClient, tableName = LOCAL_TABLE_NAME): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}

export interface QueueWithDeadLetterQueue {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
}

export interface QueueOptions {
  /** The jobs queue's name; its DLQ is `<name>-dlq`. */
  name: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  maximumMessageSizeBytes?: number;
}

/**
 * A jobs queue and its DLQ, configured as the stack configures them: a message that keeps coming back
 * (a task at its limit returns messages on purpose) is dead-lettered only after `maxReceiveCount`
 * receives. The local platform, the tests and the benchmarks all create their queues with this.
 */
export async function createQueueWithDeadLetterQueue(
  client: SQSClient,
  options: QueueOptions,
): Promise<QueueWithDeadLetterQueue> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${options.name}-dlq` }));
  const deadLetterQueueUrl = dlq.QueueUrl ?? '';
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: options.name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        ...(options.maximumMessageSizeBytes
          ? { MaximumMessageSize: String(options.maximumMessageSizeBytes) }
          : {}),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: await queueArn(client, deadLetterQueueUrl),
          maxReceiveCount: options.maxReceiveCount,
        }),
      },
    }),
  );
  const queueUrl = queue.QueueUrl ?? '';
  return { queueUrl, queueArn: await queueArn(client, queueUrl), deadLetterQueueUrl };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const output = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return output.Attributes?.QueueArn ?? '';
}
