import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SqsJobQueue } from '../../lib/adapters/sqs/sqs-job-queue';
import type { JobMessage } from '../../lib/core/ports/job-queue';
import { sleep } from '../support/parallel';

/**
 * Dead letters and their redrive, as an operator does it: messages land in the DLQ (copies put there by
 * the faults, and any that ran out of receives), and every few seconds all of them are moved back to the
 * jobs queue. A redriven copy of a job that ran already — its result possibly expired — must not run again.
 */
export class DeadLetterRedrive {
  copied = 0;
  redriven = 0;
  private readonly deadLetters: SqsJobQueue;
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly dlqUrl: string,
  ) {
    this.deadLetters = new SqsJobQueue({ client, queueUrl: dlqUrl });
  }

  /** Puts copies of `messages` in the DLQ, visible at once. */
  readonly copy = async (messages: readonly JobMessage[]): Promise<void> => {
    const { failed } = await this.deadLetters.send(
      messages.map((message) => ({ ...message, delaySeconds: 0 })),
    );
    this.copied += messages.length - failed.length;
  };

  /** Redrives everything in the DLQ every `everyMs` until `stop`. */
  start(everyMs: number): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await sleep(everyMs);
        await this.redriveAll().catch(() => {});
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Moves every message now visible in the DLQ to the jobs queue; resolves with how many. */
  async redriveAll(): Promise<number> {
    let moved = 0;
    for (;;) {
      const received = await this.client.send(
        new ReceiveMessageCommand({ QueueUrl: this.dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
      );
      const messages = received.Messages ?? [];
      if (messages.length === 0) return moved;
      // One by one: a batch of large payloads can exceed SendMessageBatch's total size.
      await Promise.all(
        messages.map((message) =>
          this.client.send(
            new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: message.Body ?? '' }),
          ),
        ),
      );
      await this.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.dlqUrl,
          Entries: messages.map((message, index) => ({
            Id: `d${index}`,
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
      moved += messages.length;
      this.redriven += messages.length;
    }
  }
}
