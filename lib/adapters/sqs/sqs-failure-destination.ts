import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  type FailureDestination,
  type FailureNotice,
  failureNoticeBody,
} from '../../core/ports/failure-destination';

/** Sends each job that failed for good to an SQS queue, the notice's body as the message body (JSON). */
export class SqsFailureDestination implements FailureDestination {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(notice: FailureNotice): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(failureNoticeBody(notice)),
      }),
    );
  }
}
