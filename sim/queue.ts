import type { SQSRecord } from 'aws-lambda';
import { encodeJobMessage } from '../lib/core/model/job-message';
import type { DeadLetterQueue, UnreadableMessage } from '../lib/core/ports/dead-letter-queue';
import type { JobMessage, JobQueue, ReceivedMessage } from '../lib/core/ports/job-queue';
import { type Latency, latencyOf } from './ports';
import type { Rng } from './rng';
import type { SimProcess, Simulation } from './scheduler';

/** How the simulated queue misbehaves, each a probability per message (per call for `changeVisibility`). */
export interface QueueFaults {
  /** A send entry fails and is reported failed. */
  sendFails: number;
  /** A send entry is stored but reported failed (its answer lost): the sender may send it again. */
  sendAnswerLost: number;
  /**
   * A stored message is stored twice (SQS standard queues deliver at least once); the copy comes at
   * once or, as a copy left on a server that missed the delete does, up to `LATE_COPY_MS` later.
   */
  duplicate: number;
  /** A delete of a handled message is lost: the message comes back after its visibility timeout. */
  deleteLost: number;
  /** A change of visibility is refused. */
  visibilityRefused: number;
  /**
   * At most this long (ms) a stored message waits before it can be received, each its own draw: a
   * queue behind a backlog, where the soak saw a woken message wait 38 s.
   */
  travelMs: number;
}

export interface QueueSettings {
  visibilityTimeoutMs: number;
  maxReceiveCount: number;
  latency: Latency;
}

/** How much later than its message a duplicate may come at most. */
const LATE_COPY_MS = 60_000;

export const JOBS_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:sundial-jobs';

interface StoredMessage {
  messageId: string;
  body: string;
  jobId: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  /** The handle of its latest receive: only it deletes the message or changes its visibility. */
  handle: string | null;
}

/**
 * An SQS standard queue with its dead-letter queue, in simulated time: delays, visibility timeouts,
 * receive counts and the redrive policy (a message received `maxReceiveCount` times goes to the
 * dead-letter queue at its next receive), duplicates, and deletes that are lost. Its sender side is the
 * runtime's `JobQueue`; its consumer side (`receive`, `delete`) is the event source mapping's.
 */
export class SimQueue {
  readonly deadLetters: StoredMessage[] = [];
  /** Everything sent, by job id: the runtime's sends (duplicates and redrives not counted). */
  readonly sentJobs = new Map<string, number>();
  /** Told each time a message becomes visible at a time of its own (stored, or its visibility changed). */
  onVisibleAt: (at: number) => void = () => {};
  private readonly messages = new Map<string, StoredMessage>();
  /** The message each receipt handle names (only its latest receive's handle names it). */
  private readonly handles = new Map<string, StoredMessage>();
  private next = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly rng: Rng,
    private readonly settings: QueueSettings,
    private readonly faults: () => QueueFaults,
  ) {}

  get size(): number {
    return this.messages.size;
  }

  /** The queue as `proc` sends to it (the runtime's `JobQueue`). */
  senderFor(proc: SimProcess): JobQueue {
    return {
      send: (messages) => this.send(proc, messages),
      changeVisibility: (message, timeoutSeconds) => this.changeVisibility(proc, message, timeoutSeconds),
    };
  }

  private send(proc: SimProcess, messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    return this.sim.operation(
      proc,
      `queue.send ${messages.map((message) => message.job.id).join(' ')}`,
      this.latency(),
      (settle) => {
        const faults = this.faults();
        const failed: string[] = [];
        for (const message of messages) {
          if (this.rng.chance(faults.sendFails)) {
            failed.push(message.job.id);
            this.sim.lastDisturbanceAt = this.sim.time;
            continue;
          }
          this.sentJobs.set(message.job.id, (this.sentJobs.get(message.job.id) ?? 0) + 1);
          const delayMs = message.delaySeconds * 1000;
          this.store(encodeJobMessage(message), message.job.id, delayMs + this.travel(faults));
          if (this.rng.chance(faults.duplicate)) {
            const late = this.rng.chance(0.5) ? this.rng.int(LATE_COPY_MS) : 0;
            this.store(encodeJobMessage(message), message.job.id, delayMs + this.travel(faults) + late);
          }
          if (this.rng.chance(faults.sendAnswerLost)) {
            failed.push(message.job.id);
            this.sim.lastDisturbanceAt = this.sim.time;
          }
        }
        settle.resolve({ failed });
      },
    );
  }

  private changeVisibility(
    proc: SimProcess,
    message: ReceivedMessage,
    timeoutSeconds: number,
  ): Promise<void> {
    return this.sim.operation(proc, 'queue.changeVisibility', this.latency(), (settle) => {
      const stored = this.handles.get(message.receiptHandle);
      if (!stored || this.rng.chance(this.faults().visibilityRefused)) {
        settle.reject(
          Object.assign(new Error('receipt handle is invalid or the call was refused'), {
            name: 'ReceiptHandleIsInvalid',
          }),
        );
        return;
      }
      stored.visibleAt = this.sim.time + timeoutSeconds * 1000;
      this.onVisibleAt(stored.visibleAt);
      settle.resolve();
    });
  }

  /**
   * Up to `max` visible messages, hidden for the visibility timeout; a message already received
   * `maxReceiveCount` times moves to the dead-letter queue instead.
   */
  receive(max: number): SQSRecord[] {
    const now = this.sim.time;
    const visible = [...this.messages.values()].filter((message) => message.visibleAt <= now);
    const records: SQSRecord[] = [];
    while (records.length < max && visible.length > 0) {
      const index = this.rng.int(visible.length);
      const message = visible[index] as StoredMessage;
      visible[index] = visible[visible.length - 1] as StoredMessage;
      visible.pop();
      if (message.handle) this.handles.delete(message.handle);
      if (message.receiveCount >= this.settings.maxReceiveCount) {
        this.messages.delete(message.messageId);
        message.handle = null;
        this.deadLetters.push(message);
        this.sim.note(`DLQ ${message.jobId} after ${message.receiveCount} receives`);
        continue;
      }
      message.receiveCount += 1;
      message.visibleAt = now + this.settings.visibilityTimeoutMs;
      message.handle = `h${this.nextId()}`;
      this.handles.set(message.handle, message);
      records.push(recordOf(message));
    }
    return records;
  }

  /** Deletes a handled message (the event source mapping, after the batch); may be lost. */
  delete(receiptHandle: string): void {
    if (this.rng.chance(this.faults().deleteLost)) return;
    const stored = this.handles.get(receiptHandle);
    if (!stored) return;
    this.handles.delete(receiptHandle);
    this.messages.delete(stored.messageId);
  }

  /** Moves every dead-lettered message back to the queue (a redrive), with its receive count reset. */
  redrive(): number {
    const moved = this.deadLetters.splice(0);
    for (const message of moved) this.store(message.body, message.jobId, 0);
    return moved.length;
  }

  /** When the next message becomes visible (undefined: none waits). */
  nextVisibleAt(): number | undefined {
    let next: number | undefined;
    for (const message of this.messages.values()) {
      if (next === undefined || message.visibleAt < next) next = message.visibleAt;
    }
    return next;
  }

  /** When each job's latest message in the queue or its dead-letter queue was sent. */
  lastSentAt(): Map<string, number> {
    const sent = new Map<string, number>();
    for (const message of [...this.messages.values(), ...this.deadLetters]) {
      sent.set(message.jobId, Math.max(sent.get(message.jobId) ?? message.sentAt, message.sentAt));
    }
    return sent;
  }

  /** The job ids of the messages in the queue and its dead-letter queue. */
  jobIds(): string[] {
    return [...this.messages.values(), ...this.deadLetters].map((message) => message.jobId);
  }

  private store(body: string, jobId: string, delayMs: number): void {
    const messageId = `m${this.nextId()}`;
    this.messages.set(messageId, {
      messageId,
      body,
      jobId,
      sentAt: this.sim.time,
      visibleAt: this.sim.time + delayMs,
      receiveCount: 0,
      handle: null,
    });
    this.onVisibleAt(this.sim.time + delayMs);
  }

  private travel(faults: QueueFaults): number {
    return faults.travelMs > 0 ? this.rng.int(faults.travelMs) : 0;
  }

  private nextId(): number {
    this.next += 1;
    return this.next;
  }

  private latency(): number {
    return latencyOf(this.settings.latency, this.rng);
  }
}

/** The dead-letter queue the worker moves unreadable messages to. */
export class SimDeadLetters {
  readonly messages: UnreadableMessage[] = [];

  constructor(private readonly sim: Simulation) {}

  /** The dead-letter queue as `proc` sends to it. */
  senderFor(proc: SimProcess): DeadLetterQueue {
    return {
      deadLetter: (message) =>
        this.sim.operation(proc, 'dlq.deadLetter', 5, (settle) => {
          this.messages.push(message);
          settle.resolve();
        }),
    };
  }
}

function recordOf(message: StoredMessage): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.handle as string,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'sim',
      ApproximateFirstReceiveTimestamp: String(message.sentAt),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: JOBS_QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}
