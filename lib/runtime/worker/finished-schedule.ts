import { scheduleEvent } from '../../core/ports/event-publisher';
import type { JobRequest } from '../../core/ports/job-store';
import { removeFinishedAfterLastFire } from '../dispatch/finished-cleanup';
import type { Logger } from '../observability/logger';
import type { WorkerContext } from './worker-context';

/**
 * Removes the finished schedule once its last fire's job has ended (`removeFinishedAfterLastFire`) and
 * publishes `schedule.removed` (reason `finished`). `failed` keeps the message: its redelivery finds the
 * job ended (a duplicate) and tries again, so a crash here never leaves the schedule behind. The chain
 * finished the schedule before it sent its last fire (ADR 0008), so that fire's end finds it so.
 */
export async function cleanUpFinishedSchedule(
  ctx: WorkerContext,
  job: JobRequest,
  logger: Logger,
): Promise<'done' | 'failed'> {
  if (job.scheduleId === null) return 'done';
  try {
    const removed = await removeFinishedAfterLastFire(ctx.deps, job.scheduleId, job.fireTime);
    if (removed) {
      logger.info('finished schedule removed after its last job ended', { scheduleId: removed.id });
      ctx.events.addScheduleEvent(
        scheduleEvent('schedule.removed', removed, ctx.deps.clock.now(), 'finished'),
      );
    }
    return 'done';
  } catch (error) {
    logger.warn('could not remove the finished schedule; the message comes back to try again', { error });
    return 'failed';
  }
}
