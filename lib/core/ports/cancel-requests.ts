import type { EpochMs } from '../clock';
import type { Job } from '../model/job';

/** `cancel_job` of a running job (ADR 0012): the request on the job's record, read by its worker. */
export interface CancelRequests {
  /**
   * Asks a running job to stop (`Job.cancelRequestedAt`, set at `now` unless asked before): its worker
   * reads it while the handler runs (`isCancelRequested`). Returns the job as written; undefined when the
   * job is absent or not running.
   */
  requestCancel(id: string, now: EpochMs): Promise<Job | undefined>;

  /**
   * Whether `cancel_job` asked the run of `owner` to stop: read every few seconds while a handler runs,
   * so it may lag a write by the store's replication (an eventually consistent read, half the price).
   * False when the job is no longer that owner's run.
   */
  isCancelRequested(id: string, owner: string): Promise<boolean>;
}
