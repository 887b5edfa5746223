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

/** `2026-03-02T09:00:00.000Z v3`: how a revision is named in messages and logs. */
export function describeRevision(revision: ScheduleRevision | null): string {
  return revision === null
    ? 'an unknown revision'
    : `revision ${revision.version} of ${new Date(revision.createdAt).toISOString()}`;
}
