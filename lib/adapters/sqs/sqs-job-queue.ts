import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type {
  JobMessage,
  JobQueue,
  ReceivedMessage,
  RefusedMessage,
  SendOutcome,
} from '../../core/ports/job-queue';
import {
  DEFAULT_MAX_BATCH_BYTES,
  type OutgoingMessage,
  outgoingMessage,
  packBatches,
  withBmpOnlyBody,
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
   * The queue for critical jobs (`job.priority` critical) and woken ones (each holds a slot of its task,
   * handed to it, while its message travels: ADR 0009), consumed apart from the jobs queue so that they
   * do not wait behind its backlog. Absent: they go to `queueUrl` as well.
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
  /** The queue refused the message itself, for good (see `refusalOf`): its reason. */
  refusal?: string;
}

/** The whole-call error of a batch whose messages add up to more than the queue allows. */
const BATCH_TOO_LONG = 'BatchRequestTooLong';
/** An entry's error for characters the queue does not take. */
const INVALID_CONTENTS = 'InvalidMessageContents';
/**
 * The entry errors by which the queue refuses a message for what it holds, whatever the moment: its
 * characters (`InvalidMessageContents`) or its size or attributes (`InvalidParameterValue`). Throttles,
 * the service's own faults, and errors of the queue itself (missing, access, KMS) are not: the same
 * message may go through later.
 */
const REFUSING_ENTRY_CODES: ReadonlySet<string> = new Set([INVALID_CONTENTS, 'InvalidParameterValue']);

/** Why the queue refused an entry for good, or undefined when the failure may pass. */
function refusalOf(code: string, senderFault: boolean, message: string | undefined): string | undefined {
  return senderFault && REFUSING_ENTRY_CODES.has(code)
    ? `${code}: ${message ?? 'no reason given'}`
    : undefined;
}

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
 * others. An entry the service failed on its side is sent once more before it is reported as failed,
 * and so is one refused for characters outside the BMP, with them escaped (`withBmpOnlyBody`). A
 * message the queue refuses for what it holds (too long even alone, characters it does not take) is
 * reported as refused: sending it again would fail again. Throttling and 5xx of a whole call are
 * retried by the SDK.
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

  async send(messages: readonly JobMessage[]): Promise<SendOutcome> {
    const byQueue = new Map<string, OutgoingMessage[]>();
    for (const message of earliestFirst(messages)) {
      const queueUrl = this.queueUrlFor(message);
      const outgoing = byQueue.get(queueUrl) ?? [];
      if (outgoing.length === 0) byQueue.set(queueUrl, outgoing);
      outgoing.push(outgoingMessage(message));
    }
    const outcomes = await Promise.all(
      [...byQueue].flatMap(([queueUrl, outgoing]) =>
        packBatches(outgoing, this.maxBatchBytes).map((batch) => this.sendBatch(queueUrl, batch)),
      ),
    );
    const refused = outcomes.flatMap((outcome) => outcome.refused ?? []);
    return { failed: outcomes.flatMap((outcome) => outcome.failed), ...(refused.length > 0 && { refused }) };
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

  /** Where a message goes: a critical or woken job to the queue for critical jobs, when there is one. */
  private queueUrlFor(message: JobMessage): string {
    return (message.job.priority === 'critical' || message.woken === true) && this.criticalQueueUrl
      ? this.criticalQueueUrl
      : this.queueUrl;
  }

  /** The queue a received message came from, by the name in its source ARN. */
  private queueUrlOfSource(eventSourceARN: string): string {
    const critical = this.criticalQueueUrl;
    return critical && queueName(eventSourceARN) === queueName(critical) ? critical : this.queueUrl;
  }

  /** Resolves with the job ids of the batch that could not be sent, and those refused for good. */
  private async sendBatch(queueUrl: string, batch: readonly OutgoingMessage[]): Promise<SendOutcome> {
    const first = await this.sendSplitting(queueUrl, batch);
    const failures = new Map<OutgoingMessage, EntryFailure>();
    const again: OutgoingMessage[] = [];
    for (const [message, failure] of first) {
      const escaped = failure.code === INVALID_CONTENTS ? withBmpOnlyBody(message) : undefined;
      if (escaped) again.push(escaped);
      else if (failure.retryable) again.push(message);
      else failures.set(message, failure);
    }
    if (again.length > 0) {
      for (const [message, failure] of await this.sendSplitting(queueUrl, again))
        failures.set(message, failure);
    }
    if (failures.size === 0) return { failed: [] };

    const jobIds = [...failures.keys()].map((message) => message.message.job.id);
    this.onSendFailure({
      jobIds,
      codes: [...new Set([...failures.values()].map((failure) => failure.code))],
    });
    const refused: RefusedMessage[] = [...failures].flatMap(([message, failure]) =>
      failure.refusal === undefined ? [] : [{ jobId: message.message.job.id, reason: failure.refusal }],
    );
    return { failed: jobIds, ...(refused.length > 0 && { refused }) };
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
        if (!message) continue;
        const code = failure.Code ?? 'unknown';
        const refusal = refusalOf(code, failure.SenderFault === true, failure.Message);
        failures.set(message, { code, retryable: !failure.SenderFault, ...(refusal && { refusal }) });
      }
    } catch (error) {
      const code = error instanceof Error ? error.name : 'unknown';
      // A message too long for a batch even alone is refused for good; any other failed call may pass.
      const refusal =
        code === BATCH_TOO_LONG && batch.length === 1
          ? `${code}: ${error instanceof Error ? error.message : 'the message alone is longer than a batch may be'}`
          : undefined;
      for (const message of batch)
        failures.set(message, { code, retryable: false, ...(refusal && { refusal }) });
    }
    return failures;
  }
}
