import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobMessage, JobQueue, ReceivedMessage } from '../../core/ports/job-queue';
import {
  DEFAULT_MAX_BATCH_BYTES,
  type OutgoingMessage,
  outgoingMessage,
  packBatches,
} from './message-batches';

/** Why messages could not be sent; the job ids are returned as failed as well. */
export interface SendFailure {
  jobIds: string[];
  codes: string[];
}

export interface SqsJobQueueOptions {
  client: SQSClient;
  queueUrl: string;
  /**
   * The queue for critical jobs (`job.priority` critical), consumed apart from the jobs queue so that
   * they do not wait behind its backlog. Absent: critical jobs go to `queueUrl` as well.
   */
  criticalQueueUrl?: string;
  /**
   * The most a SendMessageBatch's messages may add up to (bytes, 1,024 to 1,048,576): 1 MiB in most
   * regions today, 256 KiB in older ones and emulators. A batch the queue still finds too long is split.
   * @default 262144 (256 KiB)
   */
  maxBatchBytes?: number;
  /** Told about every batch with entries that failed for good (for logging). */
  onSendFailure?: (failure: SendFailure) => void;
}

interface EntryFailure {
  code: string;
  /** The service failed on its side (`SenderFault: false`): worth one more try. */
  retryable: boolean;
}

/** The whole-call error of a batch whose messages add up to more than the queue allows. */
const BATCH_TOO_LONG = 'BatchRequestTooLong';

/** The messages by run time, earliest first (a stable sort: equal run times keep their order). */
function earliestFirst(messages: readonly JobMessage[]): JobMessage[] {
  return [...messages].sort((a, b) => a.job.runAt - b.job.runAt);
}

/** The queue's name: the last part of its URL (`…/<account>/<name>`) or ARN (`…:<account>:<name>`). */
function queueName(urlOrArn: string): string {
  return urlOrArn.split(/[/:]/).pop() ?? '';
}

/**
 * The jobs queue on SQS, and the queue for critical jobs when there is one. Sends in batches of at most ten messages and `maxBatchBytes`,
 * earliest run time first (a tick's round holds each schedule's fires together: its soonest fires
 * should not queue for sockets behind other schedules' later ones); a batch the
 * queue finds too long is split in halves down to single messages, so one message never blocks
 * others. An entry the service failed on its side is sent once more before it is reported as failed.
 * Throttling and 5xx of a whole call are retried by the SDK.
 */
export class SqsJobQueue implements JobQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly criticalQueueUrl: string | undefined;
  private readonly maxBatchBytes: number;
  private readonly onSendFailure: (failure: SendFailure) => void;

  constructor(options: SqsJobQueueOptions) {
    const maxBatchBytes = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    if (!Number.isInteger(maxBatchBytes) || maxBatchBytes < 1024 || maxBatchBytes > 1024 * 1024) {
      throw new RangeError(
        `SqsJobQueue: maxBatchBytes must be a whole number of bytes from 1024 to 1048576 (got ${maxBatchBytes})`,
      );
    }
    this.client = options.client;
    this.queueUrl = options.queueUrl;
    this.criticalQueueUrl = options.criticalQueueUrl;
    this.maxBatchBytes = maxBatchBytes;
    this.onSendFailure = options.onSendFailure ?? (() => {});
  }

  async send(messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    const byQueue = new Map<string, OutgoingMessage[]>();
    for (const message of earliestFirst(messages)) {
      const queueUrl = this.queueUrlFor(message);
      const outgoing = byQueue.get(queueUrl) ?? [];
      if (outgoing.length === 0) byQueue.set(queueUrl, outgoing);
      outgoing.push(outgoingMessage(message));
    }
    const failed = await Promise.all(
      [...byQueue].flatMap(([queueUrl, outgoing]) =>
        packBatches(outgoing, this.maxBatchBytes).map((batch) => this.sendBatch(queueUrl, batch)),
      ),
    );
    return { failed: failed.flat() };
  }

  async changeVisibility(message: ReceivedMessage, timeoutSeconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrlOfSource(message.eventSourceARN),
        ReceiptHandle: message.receiptHandle,
        VisibilityTimeout: Math.round(timeoutSeconds),
      }),
    );
  }

  /** Where a message goes: a critical job to the queue for critical jobs, when there is one. */
  private queueUrlFor(message: JobMessage): string {
    return message.job.priority === 'critical' && this.criticalQueueUrl
      ? this.criticalQueueUrl
      : this.queueUrl;
  }

  /** The queue a received message came from, by the name in its source ARN. */
  private queueUrlOfSource(eventSourceARN: string): string {
    const critical = this.criticalQueueUrl;
    return critical && queueName(eventSourceARN) === queueName(critical) ? critical : this.queueUrl;
  }

  /** Resolves with the job ids of the batch that could not be sent. */
  private async sendBatch(queueUrl: string, batch: readonly OutgoingMessage[]): Promise<string[]> {
    const first = await this.sendSplitting(queueUrl, batch);
    const retry = [...first].filter(([, failure]) => failure.retryable).map(([message]) => message);
    const second =
      retry.length > 0 ? await this.sendSplitting(queueUrl, retry) : new Map<OutgoingMessage, EntryFailure>();

    const failures = new Map([...first].filter(([, failure]) => !failure.retryable));
    for (const [message, failure] of second) failures.set(message, failure);
    if (failures.size === 0) return [];

    const jobIds = [...failures.keys()].map((message) => message.message.job.id);
    this.onSendFailure({
      jobIds,
      codes: [...new Set([...failures.values()].map((failure) => failure.code))],
    });
    return jobIds;
  }

  /** Sends a batch once; one the queue finds too long is split in halves and each half sent the same way. */
  private async sendSplitting(
    queueUrl: string,
    batch: readonly OutgoingMessage[],
  ): Promise<Map<OutgoingMessage, EntryFailure>> {
    const failures = await this.trySend(queueUrl, batch);
    const tooLong = [...failures.values()].some((failure) => failure.code === BATCH_TOO_LONG);
    if (!tooLong || batch.length === 1) return failures;
    const middle = Math.ceil(batch.length / 2);
    const halves = await Promise.all([
      this.sendSplitting(queueUrl, batch.slice(0, middle)),
      this.sendSplitting(queueUrl, batch.slice(middle)),
    ]);
    return new Map(halves.flatMap((half) => [...half]));
  }

  /** Sends the batch once; resolves with the messages that failed. */
  private async trySend(
    queueUrl: string,
    batch: readonly OutgoingMessage[],
  ): Promise<Map<OutgoingMessage, EntryFailure>> {
    const failures = new Map<OutgoingMessage, EntryFailure>();
    // Entry ids must be short and alphanumeric; job ids are not, so entries are named by position.
    const byEntryId = new Map(batch.map((message, index) => [`m${index}`, message]));
    try {
      const output = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: [...byEntryId].map(([id, message]) => ({
            Id: id,
            MessageBody: message.body,
            DelaySeconds: message.message.delaySeconds,
          })),
        }),
      );
      for (const failure of output.Failed ?? []) {
        const message = byEntryId.get(failure.Id ?? '');
        if (message)
          failures.set(message, { code: failure.Code ?? 'unknown', retryable: !failure.SenderFault });
      }
    } catch (error) {
      const code = error instanceof Error ? error.name : 'unknown';
      for (const message of batch) failures.set(message, { code, retryable: false });
    }
    return failures;
  }
}
