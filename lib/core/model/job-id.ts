import type { EpochMs } from '../clock';
import { LIMITS } from '../limits';

/**
 * The grammar of schedule and job ids. Ids callers choose are 1–200 characters from letters, digits
 * and `. _ : -`. `@` is reserved: the job of a schedule's fire is `<schedule id>@<fire time in epoch
 * ms>`, and a run-now job `<schedule id>@run-<unique id>`, so no chosen id collides with either and a
 * run-now job is never read as a fire.
 */

/** The characters of an id a caller chooses. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const ID_RULE =
  'may contain only letters, digits and . _ : - (not @, which separates a schedule id from a fire time)';

/** A job id: an id, or two joined by one `@` (the jobs of fires and run-now jobs). */
const JOB_ID_PATTERN = /^[A-Za-z0-9._:-]+(@[A-Za-z0-9._:-]+)?$/;
export const MAX_JOB_ID_LENGTH = LIMITS.idLength * 2;
export const JOB_ID_RULE = `must be a job id: at most ${MAX_JOB_ID_LENGTH} characters from letters, digits and . _ : -, with at most one @`;

/** A fire time as `scheduleJobId` writes it: no leading zero, at most 16 digits (epoch ms, to the year 318857). */
const FIRE_JOB_ID = /^(.+)@(0|[1-9]\d{0,15})$/;

/** The deterministic id of the job for one fire time of a schedule. */
export function scheduleJobId(scheduleId: string, fireTime: EpochMs): string {
  return `${scheduleId}@${fireTime}`;
}

/** The id of a job `run_schedule_now` adds: it cannot collide with a fire's `<scheduleId>@<epochMs>`. */
export function runNowJobId(scheduleId: string, uniqueId: string): string {
  return `${scheduleId}@run-${uniqueId}`;
}

/** The schedule and fire time a fire's job id names (exactly as `scheduleJobId` writes it); undefined for any other job id. */
export function parseFireJobId(jobId: string): { scheduleId: string; fireTime: EpochMs } | undefined {
  const match = FIRE_JOB_ID.exec(jobId);
  if (!match) return undefined;
  const [, scheduleId = '', fireTime = ''] = match;
  return { scheduleId, fireTime: Number(fireTime) };
}

export function isJobId(text: string): boolean {
  return text.length <= MAX_JOB_ID_LENGTH && JOB_ID_PATTERN.test(text);
}
