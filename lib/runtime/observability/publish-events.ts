import { type EventPublisher, eventSubject, type SundialEvent } from '../../core/ports/event-publisher';

interface WarnLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Publishes events after the change they tell of was written. Events are best effort, at most once:
 * a failing bus is logged and counted, never thrown, so it never fails the call or the tick whose
 * write succeeded (the stored schedule or job is the record; the event only tells of it).
 */
export async function publishBestEffort(
  publisher: EventPublisher,
  events: readonly SundialEvent[],
  logger: WarnLogger,
): Promise<{ failed: number }> {
  if (events.length === 0) return { failed: 0 };
  try {
    await publisher.publish(events);
    return { failed: 0 };
  } catch (error) {
    logger.warn('publishing events failed; the changes they tell of stand', {
      count: events.length,
      types: [...new Set(events.map((event) => event.type))],
      ids: events.map(eventSubject),
      error,
    });
    return { failed: events.length };
  }
}
