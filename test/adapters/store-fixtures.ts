import type { JobResult } from '../../lib/core/model/job';
import type { ConflictPolicy, ScheduleDefinition } from '../../lib/core/model/schedule';
import { DEFAULT_NOTE_GRID, firstOpenBucket } from '../../lib/core/planning/note-chunks';
import type { ClaimJobInput, JobRequest, JobStore } from '../../lib/core/ports/job-store';
import type {
  AddScheduleOutcome,
  ChainStart,
  SchedulePosition,
  ScheduleStore,
} from '../../lib/core/ports/schedule-store';
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

/** Where a schedule stands before anything ran: its next fire time, no last fire, no runs. */
export function startingAt(nextFireAt: number | null): SchedulePosition {
  return { nextFireAt, lastFireAt: null, runs: 0 };
}

/**
 * A chain start (ADR 0008) of schedule `id` at `position`, its first note in the first bucket a writer
 * at `now` may place it in (or `bucket`).
 */
export function chainStart(
  id: string,
  chain: string,
  position: SchedulePosition,
  now = T0,
  bucket = firstOpenBucket(DEFAULT_NOTE_GRID, now),
): ChainStart {
  const { nextFireAt, runs, lastFireAt } = position;
  if (nextFireAt === null) throw new Error('a chain starts at a fire time');
  return {
    chain,
    note: { bucket, entry: { scheduleId: id, chain, nextFireAt, runs, lastFireAt } },
    writer: `test.${id}.${chain}.0`,
    now,
  };
}

/**
 * Adds schedule `id` as the admin API writes an active one: its first fire `nextFireAt` (T0 + 10 s by
 * default), its chain `chain` ('c1') noted with it.
 */
export function addActive(
  store: ScheduleStore,
  id: string,
  options: {
    schedule?: Partial<ScheduleDefinition>;
    nextFireAt?: number;
    now?: number;
    chain?: string;
    conflictPolicy?: ConflictPolicy;
  } = {},
): Promise<AddScheduleOutcome> {
  const now = options.now ?? T0;
  const position = startingAt(options.nextFireAt ?? T0 + 10 * SECOND);
  return store.addSchedule({
    schedule: definition(id, options.schedule),
    position,
    start: chainStart(id, options.chain ?? 'c1', position, now),
    conflictPolicy: options.conflictPolicy ?? 'exception',
    now,
  });
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
