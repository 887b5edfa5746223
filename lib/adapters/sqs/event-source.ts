import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ReceiveGate } from './receive-gate';

export interface PollOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn?: string;
  /** Messages per batch (1..10). @default 10 */
  batchSize?: number;
  /** Long-poll wait (0..20 s). @default 0 */
  waitTimeSeconds?: number;
  region?: string;
  /** Waits for a turn to receive among the loops that share it (see `ReceiveGate`). */
  gate?: ReceiveGate;
}

/**
 * Does what Lambda's SQS event source mapping does, once: receives a batch, hands it to the handler
 * as an `SQSEvent`, and deletes the messages the handler did not report as failed (a handler that
 * throws fails the whole batch). Used by the local platform and by integration tests.
 * Resolves with the number of messages received.
 */
export async function pollOnce(
  options: PollOptions,
  handler: (event: SQSEvent) => Promise<SQSBatchResponse>,
): Promise<number> {
  await options.gate?.enter();
  let messages: Message[] = [];
  try {
    const received = await options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize ?? 10,
        WaitTimeSeconds: options.waitTimeSeconds ?? 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    messages = received.Messages ?? [];
  } finally {
    options.gate?.received(messages.length);
  }
  if (messages.length === 0) return 0;

  const records = messages.map((message) => toRecord(message, options));
  let failedIds: Set<string>;
  try {
    const response = await handler({ Records: records });
    failedIds = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  } catch {
    failedIds = new Set(records.map((record) => record.messageId));
  }
  const done = records.filter((record) => !failedIds.has(record.messageId));
  if (done.length > 0) {
    await options.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((record, index) => ({ Id: `d${index}`, ReceiptHandle: record.receiptHandle })),
      }),
    );
  }
  return messages.length;
}

function toRecord(message: Message, options: PollOptions): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? '0',
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '0',
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn ?? '',
    awsRegion: options.region ?? 'us-east-1',
  };
}
