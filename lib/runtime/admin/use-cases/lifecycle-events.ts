import type { EpochMs } from '../../../core/clock';
import type { Job } from '../../../core/model/job';
import type { Schedule } from '../../../core/model/schedule';
import {
  type RemovalReason,
  type ScheduleEventType,
  type SundialEvent,
  scheduleEvent,
} from '../../../core/ports/event-publisher';
import { removeFinishedAfterLastFire } from '../../dispatch/finished-cleanup';
import { publishBestEffort } from '../../observability/publish-events';
import { publishes } from '../../worker/job-events';
import type { ActionContext } from '../context';

/**
 * Publishes what an admin call changed, after its write succeeded. Best effort: a failing bus is
 * logged, and the call still answers what it did (docs/events.md).
 */
export async function publishAfterWrite(
  context: ActionContext,
  events: readonly SundialEvent[],
): Promise<void> {
  const { events: publisher, logger } = context.deps;
  if (!publisher) return;
  await publishBestEffort(publisher, events, logger);
}

/** A schedule event of this call (at the call's `now`; a reconcile's carries its deploy's identity). */
export function scheduleEventNow(
  context: ActionContext,
  type: ScheduleEventType,
  schedule: Schedule,
  reason?: RemovalReason,
) {
  const event = scheduleEvent(type, schedule, context.now, reason);
  return context.management ? { ...event, deployment: context.management.deployment } : event;
}

/** `job.cancelled` for a job `cancel_job` cancelled, when its task publishes that event (`events: 'all'`). */
export function jobCancelledEvents(context: ActionContext, job: Job): SundialEvent[] {
  const policy = context.deps.tasks.get(job.task)?.definition.events;
  if (policy === undefined || !publishes(policy, 'job.cancelled')) return [];
  return [
    {
      type: 'job.cancelled',
      jobId: job.id,
      task: job.task,
      scheduleId: job.scheduleId,
      attempt: job.attempt,
      at: context.now,
      ...(job.result && { result: job.result }),
    },
  ];
}

/**
 * Removes the schedule when it is finished and its last fire's job has ended (`endedFireTime`: that
 * fire, or null for whatever its last fire is), and returns the `schedule.removed` event (reason
 * `finished`) to publish. A failure is logged: the schedule's closing note removes it later (ADR 0011).
 */
export async function cleanUpIfFinished(
  context: ActionContext,
  scheduleId: string,
  endedFireTime: EpochMs | null,
): Promise<SundialEvent[]> {
  try {
    const removed = await removeFinishedAfterLastFire(context.deps, scheduleId, endedFireTime);
    return removed ? [scheduleEventNow(context, 'schedule.removed', removed, 'finished')] : [];
  } catch (error) {
    context.deps.logger.warn('could not remove the finished schedule', { scheduleId, error });
    return [];
  }
}
