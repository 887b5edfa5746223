import type { SQSRecord } from 'aws-lambda';
import type { JobMessageBody } from '../../core/model/job-message';
import { scheduleEvent } from '../../core/ports/event-publisher';
import type { JobRequest } from '../../core/ports/job-store';
import type { Logger } from '../observability/logger';
import { cleanUpAfterFire } from '../scheduling/finished-cleanup';
import type { ScheduleFire } from './schedule-fire-check';
import type { MessageOutcome, WorkerContext } from './worker-context';

/** How long a message waits at most before it looks again for the release of its schedule. */
const MAX_RELEASE_WAIT_SECONDS = 5;

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
 * the job ended (a duplicate) and tries again, so a crash here never leaves the schedule behind. So
 * does a job that ended before the tick that sent it released the schedule as finished.
 */
export async function cleanUpFinishedSchedule(
  ctx: WorkerContext,
  record: SQSRecord,
  job: JobRequest,
  logger: Logger,
  finalFire = true,
): Promise<MessageOutcome> {
  if (job.scheduleId === null) return 'done';
  try {
    const { removed, releasePendingMs } = await cleanUpAfterFire(
      ctx.deps,
      job.scheduleId,
      job.fireTime,
      Number.POSITIVE_INFINITY,
      finalFire,
    );
    if (releasePendingMs !== undefined) {
      // The job ended before the tick that sent it released the schedule: look again shortly.
      logger.debug('the schedule is not released yet; the message comes back to clean it up');
      await ctx.deps.queue.changeVisibility(
        record,
        Math.min(MAX_RELEASE_WAIT_SECONDS, Math.max(1, Math.ceil(releasePendingMs / 1000))),
      );
      return 'retry_later';
    }
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
