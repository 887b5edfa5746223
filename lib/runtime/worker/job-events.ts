import type { EventPublisher, JobEvent, JobEventType } from '../../core/ports/event-publisher';
import type { Logger } from '../observability/logger';
import type { EventsPolicy } from '../tasks/define-task';

const FAILURE_EVENTS: ReadonlySet<JobEventType> = new Set(['job.failed', 'job.missed']);

/** Whether a task with this `events` setting publishes this event type. */
export function publishes(policy: EventsPolicy, type: JobEventType): boolean {
  return policy === 'all' || (policy === 'failures' && FAILURE_EVENTS.has(type));
}

/** Collects the job events of one worker invocation and publishes them in one go. */
export class JobEventBatch {
  private readonly events: JobEvent[] = [];

  constructor(
    private readonly publisher: EventPublisher,
    private readonly logger: Logger,
  ) {}

  add(policy: EventsPolicy, event: JobEvent): void {
    if (publishes(policy, event.type)) this.events.push(event);
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
        jobIds: events.map((event) => event.jobId),
        error,
      });
    }
  }
}
