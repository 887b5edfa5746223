import type { JobResult } from '../../core/model/job';
import { type FailureNotice, failureNoticeOf } from '../../core/ports/failure-destination';
import type { JobRequest } from '../../core/ports/job-store';
import type { RuntimeDeps } from '../dependencies';

/**
 * Collects the jobs of one worker invocation that failed for good (`error` after the last attempt,
 * `abandoned`) whose task has a failure destination, and sends them once their results are stored.
 * A send that fails is logged, never thrown: the result is the record, the notice a copy.
 */
export class FailureNotices {
  private readonly notices: FailureNotice[] = [];

  constructor(private readonly deps: Pick<RuntimeDeps, 'failureDestinations' | 'logger'>) {}

  /** Call after the final result was written. */
  add(job: JobRequest, result: JobResult): void {
    if (!this.deps.failureDestinations?.has(job.task)) return;
    const notice = failureNoticeOf(job, result);
    if (notice) this.notices.push(notice);
  }

  async flush(): Promise<void> {
    const notices = this.notices.splice(0);
    await Promise.all(
      notices.map(async (notice) => {
        try {
          await this.deps.failureDestinations?.get(notice.task)?.send(notice);
        } catch (error) {
          this.deps.logger.error('sending a failed job to its failure destination failed', {
            jobId: notice.jobId,
            task: notice.task,
            error,
          });
        }
      }),
    );
  }
}
