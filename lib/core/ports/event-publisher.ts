import type { EpochMs } from '../clock';
import type { JobResult } from '../model/job';

export const JOB_EVENT_TYPES = [
  'job.started',
  'job.succeeded',
  'job.failed',
  'job.retrying',
  'job.missed',
] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

export interface JobEvent {
  type: JobEventType;
  jobId: string;
  task: string;
  scheduleId: string | null;
  attempt: number;
  at: EpochMs;
  result?: JobResult;
}

/** Where job events go (EventBridge in AWS, the local log when running locally). */
export interface EventPublisher {
  publish(events: readonly JobEvent[]): Promise<void>;
}
