import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { encodeJobMessage } from '../../core/model/job-message';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';

const BATCH_SIZE = 10;

/** Why messages could not be sent; the job ids are returned as failed as well. */
export interface SendFailure {
  jobIds: string[];
  codes: string[];
}

export interface SqsJobQueueOptions {
  client: SQSClient;
  queueUrl: string;
  /** Told about every batch with entries that failed for good (for logging). */
  onSendFailure?: (failure: SendFailure) => void;
}

interface EntryFailure {
  code: string;
  /** The service failed on its side (`SenderFault: false`): worth one more try. */
  retryable: boolean;
}

/**
 * The jobs queue on SQS. Sends in batches of ten; an entry the service failed on its side is sent
 * once more before it is reported as failed. Throttling and 5xx of a whole call are retried by the SDK.
 */
export class SqsJobQueue implements JobQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly onSendFailure: (failure: SendFailure) => void;

  constructor(options: SqsJobQueueOptions) {
    this.client = options.client;
    this.queueUrl = options.queueUrl;
    this.onSendFailure = options.onSendFailure ?? (() => {});
  }

  async send(messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    const batches: JobMessage[][] = [];
    for (let start = 0; start < messages.length; start += BATCH_SIZE) {
      batches.push(messages.slice(start, start + BATCH_SIZE));
    }
    const failed = await Promise.all(batches.map((batch) => this.sendBatch(batch)));
    return { failed: failed.flat() };
  }

  async changeVisibility(receiptHandle: string, timeoutSeconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.round(timeoutSeconds),
      }),
    );
  }

  /** Resolves with the job ids of the batch that could not be sent. */
  private async sendBatch(batch: readonly JobMessage[]): Promise<string[]> {
    // Entry ids must be short and alphanumeric; job ids are not, so entries are named by position.
    const entries = new Map(batch.map((message, index) => [`m${index}`, message]));
    const first = await this.trySend(entries);
    const retry = new Map([...entries].filter(([id]) => first.get(id)?.retryable));
    const second = retry.size > 0 ? await this.trySend(retry) : new Map<string, EntryFailure>();

    const failures = new Map([...first].filter(([, failure]) => !failure.retryable));
    for (const [id, failure] of second) failures.set(id, failure);
    if (failures.size === 0) return [];

    const jobIds = [...failures.keys()].map((id) => entries.get(id)?.job.id ?? id);
    this.onSendFailure({
      jobIds,
      codes: [...new Set([...failures.values()].map((failure) => failure.code))],
    });
    return jobIds;
  }

  /** Sends the entries once; resolves with the ones that failed, by entry id. */
  private async trySend(entries: Map<string, JobMessage>): Promise<Map<string, EntryFailure>> {
    const failures = new Map<string, EntryFailure>();
    try {
      const output = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: [...entries].map(([id, message]) => toEntry(id, message)),
        }),
      );
      for (const failure of output.Failed ?? []) {
        if (failure.Id)
          failures.set(failure.Id, { code: failure.Code ?? 'unknown', retryable: !failure.SenderFault });
      }
    } catch (error) {
      const code = error instanceof Error ? error.name : 'unknown';
      for (const id of entries.keys()) failures.set(id, { code, retryable: false });
    }
    return failures;
  }
}

function toEntry(id: string, message: JobMessage): SendMessageBatchRequestEntry {
  return {
    Id: id,
    MessageBody: encodeJobMessage({ job: message.job, attempt: message.attempt }),
    DelaySeconds: message.delaySeconds,
  };
}
