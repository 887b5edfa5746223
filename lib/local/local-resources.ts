import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createTableInput } from '../adapters/dynamodb/table-design';

export const LOCAL_TABLE_NAME = 'sundial';
export const LOCAL_QUEUE_NAME = 'sundial-jobs';
export const LOCAL_DLQ_NAME = 'sundial-jobs-dlq';

/** Creates the table (same design as in AWS) unless a previous run in the same data dir did. */
export async function ensureLocalTable(client: DynamoDBClient, tableName = LOCAL_TABLE_NAME): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}

export interface LocalQueues {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
}

/**
 * The jobs queue and its DLQ, configured as the stack configures them: a message that keeps coming
 * back (a task at its limit returns messages on purpose) is dead-lettered only after many receives.
 */
export async function createLocalQueues(
  client: SQSClient,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount: number },
): Promise<LocalQueues> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: LOCAL_DLQ_NAME }));
  const deadLetterQueueUrl = dlq.QueueUrl ?? '';
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: LOCAL_QUEUE_NAME,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
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
