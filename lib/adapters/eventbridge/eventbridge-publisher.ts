import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { type EventPublisher, eventSubject, type SundialEvent } from '../../core/ports/event-publisher';

const BATCH_SIZE = 10;
export const EVENT_SOURCE = 'sundial';

/** Events that EventBridge did not accept (the job or schedule ids they are about), with its error codes. */
export interface PublishFailure {
  ids: string[];
  codes: string[];
}

export interface EventBridgePublisherOptions {
  client: EventBridgeClient;
  eventBusName: string;
  /** Told about entries EventBridge rejected (for logging); the call itself still resolves. */
  onPublishFailure?: (failure: PublishFailure) => void;
}

/**
 * Publishes job and schedule events to an EventBridge bus: source `sundial`, detail-type = the event
 * type (`job.failed`, `schedule.removed`…), detail = the event (docs/events.md). Rules match them with `{ "source": ["sundial"] }`.
 * Rejected entries are reported, not retried: events are notifications, never the record of a job.
 * A failing call (network, permissions) rejects; callers decide whether that matters.
 */
export class EventBridgePublisher implements EventPublisher {
  private readonly client: EventBridgeClient;
  private readonly eventBusName: string;
  private readonly onPublishFailure: (failure: PublishFailure) => void;

  constructor(options: EventBridgePublisherOptions) {
    this.client = options.client;
    this.eventBusName = options.eventBusName;
    this.onPublishFailure = options.onPublishFailure ?? (() => {});
  }

  async publish(events: readonly SundialEvent[]): Promise<void> {
    const batches: SundialEvent[][] = [];
    for (let start = 0; start < events.length; start += BATCH_SIZE) {
      batches.push(events.slice(start, start + BATCH_SIZE));
    }
    await Promise.all(batches.map((batch) => this.publishBatch(batch)));
  }

  private async publishBatch(batch: readonly SundialEvent[]): Promise<void> {
    const output = await this.client.send(
      new PutEventsCommand({ Entries: batch.map((event) => this.toEntry(event)) }),
    );
    if (!output.FailedEntryCount) return;
    // Result entries are in request order; failed ones carry an ErrorCode.
    const failed = (output.Entries ?? []).flatMap((entry, index) =>
      entry.ErrorCode ? [{ id: eventSubjectAt(batch, index), code: entry.ErrorCode }] : [],
    );
    this.onPublishFailure({
      ids: failed.map((entry) => entry.id),
      codes: [...new Set(failed.map((entry) => entry.code))],
    });
  }

  private toEntry(event: SundialEvent): PutEventsRequestEntry {
    return {
      EventBusName: this.eventBusName,
      Source: EVENT_SOURCE,
      DetailType: event.type,
      Detail: JSON.stringify(event),
      Time: new Date(event.at),
    };
  }
}

function eventSubjectAt(batch: readonly SundialEvent[], index: number): string {
  const event = batch[index];
  return event ? eventSubject(event) : '?';
}
