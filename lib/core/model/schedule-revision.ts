import type { EpochMs } from '../clock';
import type { Schedule } from './schedule';

/**
 * Which definition of a schedule a fire was sent under. `version` restarts at 1 when a removed
 * schedule is added again with the same id; `createdAt` tells the two apart.
 */
export interface ScheduleRevision {
  createdAt: EpochMs;
  version: number;
  /**
   * The schedule's `firesFrom` under this revision: the changes that move it (a new trigger, pause,
   * resume, replace) dispatch again every fire they run. Absent in a removal record's revision.
   */
  firesFrom?: EpochMs;
}

export function revisionOf(schedule: Pick<Schedule, 'createdAt' | 'version'>): ScheduleRevision {
  return { createdAt: schedule.createdAt, version: schedule.version };
}

/** The revision a fire is sent under: with the schedule's `firesFrom`. */
export function fireRevisionOf(
  schedule: Pick<Schedule, 'createdAt' | 'version' | 'firesFrom'>,
): ScheduleRevision {
  return { ...revisionOf(schedule), firesFrom: schedule.firesFrom };
}

export function sameRevision(a: ScheduleRevision, b: ScheduleRevision): boolean {
  return a.createdAt === b.createdAt && a.version === b.version;
}

/**
 * Whether `a` is an older definition than `b`: of an earlier creation of the schedule's id, or an
 * earlier version of the same one.
 */
export function isOlderRevision(a: ScheduleRevision, b: ScheduleRevision): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.version < b.version;
}
