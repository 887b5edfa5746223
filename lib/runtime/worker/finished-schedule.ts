import type { JobMessageBody } from '../../core/model/job-message';
import { scheduleEvent } from '../../core/ports/event-publisher';
import type { JobRequest } from '../../core/ports/job-store';
import { removeFinishedAfterLastFire } from '../dispatch/finished-cleanup';
import type { Logger } from '../observability/logger';
import type { ScheduleFire } from './schedule-fire-check';
import type { MessageOutcome, WorkerContext } from './worker-context';

/**
 * Whether handling this message may have ended the last job of a finished schedule: a fire marked
 * final (by the tick, or by the check), or any later attempt of a fire (retries are rare, and the
 * reaper's messages do not carry the mark). Other messages cost nothing here.
 */
export function mayEndItsSchedule(message: JobMessageBody, fire: ScheduleFire | undefined): boolean {
  const { job } = message;
  if (job.origin !== 'schedule' || job.scheduleId === null || job.fireTime === null) return false;
  return message.finalFire === true || fire?.finalFire === true || message.attempt > 1;
}

/**
 * Removes the finished schedule once its last fire's job has ended (`removeFinishedAfterLastFire`) and
 * publishes `schedule.removed` (reason `finished`). A failure keeps the message: its redelivery finds
 * the job ended (a duplicate) and tries again, so a crash here never leaves the schedule behind. The
 * chain finished the schedule before it sent its last fire (ADR 0008), so that fire's end finds it so.
 */
export async function cleanUpFinishedSchedule(
  ctx: WorkerContext,
  job: JobRequest,
  logger: Logger,
): Promise<MessageOutcome> {
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
    return 'retry_later';
  }
}
