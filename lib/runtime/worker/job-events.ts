import {
  type EventPublisher,
  eventSubject,
  type JobEvent,
  type JobEventType,
  type ScheduleEvent,
  type SundialEvent,
} from '../../core/ports/event-publisher';
import type { Logger } from '../observability/logger';
import type { EventsPolicy } from '../tasks/define-task';

const FAILURE_EVENTS: ReadonlySet<JobEventType> = new Set(['job.failed', 'job.missed', 'job.abandoned']);

/** Whether a task with this `events` setting publishes this event type. */
export function publishes(policy: EventsPolicy, type: JobEventType): boolean {
  return policy === 'all' || (policy === 'failures' && FAILURE_EVENTS.has(type));
}

/** Collects the events of one worker invocation and publishes them in one go. */
export class JobEventBatch {
  private readonly events: SundialEvent[] = [];

  constructor(
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
  ) {}

  add(policy: EventsPolicy, event: JobEvent): void {
    if (publishes(policy, event.type)) this.events.push(event);
  }

  /** Schedule events are published whatever the task's `events` setting. */
  addScheduleEvent(event: ScheduleEvent): void {
    this.events.push(event);
  }

  /** Publishes what was collected. A failure is logged, never thrown: events never fail a job. */
  async flush(): Promise<void> {
    if (this.events.length === 0) return;
    const events = this.events.splice(0);
    try {
      await this.publisher.publish(events);
    } catch (error) {
      this.logger.error('publishing job events failed', {
        count: events.length,
        ids: events.map(eventSubject),
        error,
      });
    }
  }
}
