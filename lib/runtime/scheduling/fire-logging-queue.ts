import type { Clock } from '../../core/clock';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';

/**
 * A queue that notes the first fires of each send in their tasks' fire logs before sending them
 * (`JobStore.logFiresToSend`, one write per task and minute instead of an index entry per job) and marks
 * the messages it noted (`taskLogged`). When noting throws, nothing is sent: a sent fire is always in
 * its task's log, and the caller resumes its schedule at the first unsent fire. Wrap it around the
 * queue that sees a whole round at once (outside `phasedJobQueue`), so one write covers the round.
 */
/** A fire's first delivery: what the tick sends, and what a log lists. */
function isFirstFire(message: JobMessage): boolean {
  return message.attempt === 1 && message.job.origin === 'schedule';
}

export function fireLoggingQueue(
  queue: JobQueue,
  store: Pick<JobStore, 'logFiresToSend'>,
  clock: Clock,
): JobQueue {
  return {
    async send(messages) {
      const fires = messages.filter(isFirstFire);
      if (fires.length === 0) return queue.send(messages);
      const logged = await store.logFiresToSend(
        fires.map((message) => message.job),
        clock.now(),
      );
      return queue.send(
        messages.map((message) =>
          isFirstFire(message) && logged.has(message.job.id)
            ? { ...message, taskLogged: true as const }
            : message,
        ),
      );
    },
    changeVisibility: (receiptHandle, timeoutSeconds) =>
      queue.changeVisibility(receiptHandle, timeoutSeconds),
  };
}
