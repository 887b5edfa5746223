import type { JobResult } from '../../lib/core/model/job';
import type { Schedule, ScheduleDefinition } from '../../lib/core/model/schedule';
import type { ConvertScheduleToNotesInput } from '../../lib/core/ports/due-notes';
import type { ClaimJobInput, JobRequest, JobStore } from '../../lib/core/ports/job-store';
import type { ReleaseScheduleInput, ScheduleStore } from '../../lib/core/ports/schedule-store';
import type { TriggerSpec } from '../../lib/core/triggers/schema';

export type Store = ScheduleStore & JobStore;

export interface StoreFixture {
  store: Store;
  /** Overwrites a task's running counter, simulating drift. */
  setRunningCount(task: string, running: number): Promise<void>;
  /** Deletes every item whose TTL has passed by `now`, as DynamoDB's TTL does (late; Local never does). */
  expireRecords(now: number): Promise<void>;
  /** Puts a due-note item as given, valid or not (entries that no writer would write). */
  putRawNoteItem(shard: number, bucket: number, name: string, entries: unknown): Promise<void>;
  teardown(): Promise<void>;
}

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const SECOND = 1_000;
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

export function definition(id: string, overrides: Partial<ScheduleDefinition> = {}): ScheduleDefinition {
  return {
    id,
    task: 'send-report',
    trigger: { type: 'interval', seconds: 5, start_at: '2026-01-01T00:00:00Z' } as unknown as TriggerSpec,
    payload: { to: 'ops@example.com', nested: { list: [1, 'two', null, true] } },
    coalesce: 'latest',
    misfireGraceSeconds: 30,
    maxJitterSeconds: 0,
    tags: ['reports'],
    paused: false,
    keepFinished: false,
    maxRuns: null,
    ...overrides,
  };
}

/** The conversion to notes of schedule `id` as added at T0 (version 1, next fire T0 + 10 s), after two fires. */
export function conversionOf(
  id: string,
  overrides: Partial<ConvertScheduleToNotesInput> = {},
): ConvertScheduleToNotesInput {
  return {
    id,
    seenVersion: 1,
    seenCreatedAt: T0,
    seenNextFireAt: T0 + 10 * SECOND,
    runs: 2,
    lastFireAt: T0 + 90 * SECOND,
    now: T0,
    ...overrides,
  };
}

/** The job of schedule `scheduleId`'s fire at `fireTime` (its id `<schedule id>@<fire time>`). */
export function fireRequest(
  scheduleId: string,
  fireTime: number,
  overrides: Partial<JobRequest> = {},
): JobRequest {
  return jobRequest(`${scheduleId}@${fireTime}`, {
    origin: 'schedule',
    scheduleId,
    fireTime,
    runAt: fireTime,
    ...overrides,
  });
}

/** Every job id of a listing, page by page (each page at most `limit` long). */
export async function listedIds(
  store: JobStore,
  filter: Parameters<JobStore['listJobs']>[0],
  limit: number,
  now = T0,
  from?: string,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined = from;
  do {
    const page = await store.listJobs(filter, { limit, cursor }, now);
    if (page.items.length > limit)
      throw new Error(`a page of ${page.items.length} jobs, over its limit ${limit}`);
    ids.push(...page.items.map((job) => job.id));
    cursor = page.cursor;
  } while (cursor);
  return ids;
}

export function jobRequest(id: string, overrides: Partial<JobRequest> = {}): JobRequest {
  return {
    id,
    task: 'send-report',
    payload: { n: 1 },
    origin: 'direct',
    scheduleId: null,
    fireTime: null,
    runAt: T0,
    startDeadline: null,
    ...overrides,
  };
}

/** The first delivery of job `id` of the task `limited` (at most `limit` running), by owner `w-<id>`. */
export function limitedClaim(id: string, limit: number, now = T0): ClaimJobInput {
  return {
    job: jobRequest(id, { task: 'limited' }),
    attempt: 1,
    owner: `w-${id}`,
    now,
    leaseUntil: now + MINUTE,
    concurrencyLimit: limit,
  };
}

/** Attempt 1 of `jobId` (claimed by owner `w` at T0) fails at T0 and is retried at `retryAt`. */
export function retryFirstAttempt(store: Store, jobId: string, retryAt: number): Promise<unknown> {
  return store.retryJob({
    jobId,
    owner: 'w',
    failedAttempt: 1,
    error: { type: 'Error', message: 'again' },
    retryAt,
    now: T0,
  });
}

export const SUCCESS: JobResult = { outcome: 'success', startedAt: T0, finishedAt: T0 + SECOND, attempt: 1 };

export function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** What `promise` rejected with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

/** What a release rests on, from the schedule as its lease returned it. */
export function leasedState(schedule: Schedule): ReleaseScheduleInput['leased'] {
  return { nextFireAt: schedule.nextFireAt, firesFrom: schedule.firesFrom, maxRuns: schedule.maxRuns };
}

/** As `leasedState`, for a schedule added at T0 with next fire time T0 and no cap on runs. */
export const LEASED_AS_ADDED_AT_T0: ReleaseScheduleInput['leased'] = {
  nextFireAt: T0,
  firesFrom: T0,
  maxRuns: null,
};
