import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetterQueue, UnreadableMessage } from '../../core/ports/dead-letter-queue';

/**
 * The jobs queue's DLQ on SQS: an unreadable message is sent there with its body unchanged, and two
 * message attributes saying where it came from and what was wrong with it.
 */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  constructor(private readonly options: { client: SQSClient; queueUrl: string }) {}

  async deadLetter(message: UnreadableMessage): Promise<void> {
    await this.options.client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: message.body.length > 0 ? message.body : '(empty body)',
        MessageAttributes: {
          SundialSourceMessageId: { DataType: 'String', StringValue: message.messageId || '(none)' },
          SundialReason: { DataType: 'String', StringValue: message.reason.slice(0, 1000) || 'unreadable' },
        },
      }),
    );
  }
}
