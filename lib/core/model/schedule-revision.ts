import type { EpochMs } from '../clock';
import type { Schedule } from './schedule';

/**
 * Which definition of a schedule a fire was sent under. `version` restarts at 1 when a removed
 * schedule is added again with the same id; `createdAt` tells the two apart.
 */
export interface ScheduleRevision {
  createdAt: EpochMs;
  version: number;
}

export function revisionOf(schedule: Pick<Schedule, 'createdAt' | 'version'>): ScheduleRevision {
  return { createdAt: schedule.createdAt, version: schedule.version };
}

export function sameRevision(a: ScheduleRevision, b: ScheduleRevision): boolean {
  return a.createdAt === b.createdAt && a.version === b.version;
}
