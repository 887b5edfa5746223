import type { EpochMs } from '../../core/clock';
import type { JsonValue } from '../../core/json';
import {
  isFinalStatus,
  type Job,
  type JobError,
  type JobOrigin,
  type JobResult,
  type JobStatus,
} from '../../core/model/job';
import type { Metadata } from '../../core/model/metadata';
import type { RunSettingOverrides } from '../../core/model/run-settings';
import type { ScheduleRevision } from '../../core/model/schedule-revision';
import { dedupeRecordExpiresAt, type JobRequest } from '../../core/ports/job-store';
import type { Expressions } from './expressions';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import {
  CHECK_FAILED_ATTRIBUTE,
  CLAIMED_REVISION_ATTRIBUTE,
  FIRE_JOB_PREFIX,
  idFromPartitionKey,
  isFireJobKey,
  jobIdFromKey,
  jobKey,
  keptFireOf,
  LOGGED_RUN_AT_ATTRIBUTE,
  RESULT_EXPIRY_ATTRIBUTE,
  TTL_ATTRIBUTE,
  ttlSeconds,
} from './table-design';

/**
 * A job item stores each fact once: the id lives in the key (`jobKey`: a fire's job under its schedule,
 * whose id is then not stored as `scheduleId` either); the result is not a nested copy but
 * `returnValue`/`error` next to the job's own `status`, `startedAt`, `finishedAt` and `attempt`;
 * `visibleUntil` (the result TTL) and `expiresAt` (the item's TTL, when its dedupe record ends) are epoch
 * seconds. `runShard` exists only while running, `dueShard`/`dueAt` only while parked. Absent optional
 * fields mean `null`.
 */
export function requestAttributes(request: JobRequest): StoredItem {
  return {
    task: request.task,
    payload: request.payload,
    origin: request.origin,
    // A fire job's schedule is its partition: without the attribute it stays out of `jobs-by-schedule`.
    scheduleId: isFireJobKey(jobKey(request.id)) ? null : request.scheduleId,
    fireTime: request.fireTime,
    runAt: request.runAt,
    startDeadline: request.startDeadline,
    overrides: request.overrides,
    metadata: request.metadata,
    attemptBase: request.attemptBase,
    priority: request.priority === 'critical' ? request.priority : null,
  };
}

/**
 * The attribute a retry moves a job's run time in: `loggedRunAt` for a fire (its place in its task's
 * listing stays where its first claim put it, ADR 0001), `runAt` for any other job.
 */
export function retryRunAtAttribute(jobId: string): string {
  return keptFireOf(jobId) ? LOGGED_RUN_AT_ATTRIBUTE : 'runAt';
}

export function newJobItem(request: JobRequest, now: EpochMs): StoredItem {
  const item: StoredItem = { ...jobKey(request.id), attempt: 0, status: 'queued', createdAt: now };
  for (const [attribute, value] of Object.entries(requestAttributes(request))) {
    if (value !== null && value !== undefined) item[attribute] = value;
  }
  return item;
}

export function itemToJob(item: StoredItem): Job {
  const status = item.status as JobStatus;
  const startedAt = optionalNumber(item.startedAt);
  const finishedAt = optionalNumber(item.finishedAt);
  const attempt = Number(item.attempt ?? 0);
  const expiresAt = optionalNumber(item[RESULT_EXPIRY_ATTRIBUTE]);
  const key = { pk: String(item.pk), sk: String(item.sk) };
  return {
    id: jobIdFromKey(key),
    task: typeof item.task === 'string' ? item.task : '',
    payload: (item.payload ?? null) as JsonValue,
    origin: (item.origin ?? 'direct') as JobOrigin,
    scheduleId: scheduleIdOf(item, key),
    fireTime: optionalNumber(item.fireTime),
    runAt: Number(item[LOGGED_RUN_AT_ATTRIBUTE] ?? item.runAt ?? item.createdAt ?? 0),
    startDeadline: optionalNumber(item.startDeadline),
    ...(item.overrides !== undefined && { overrides: item.overrides as RunSettingOverrides }),
    ...(item.metadata !== undefined && { metadata: item.metadata as Metadata }),
    ...(item.priority === 'critical' && { priority: 'critical' as const }),
    attempt,
    status,
    leaseOwner: typeof item.leaseOwner === 'string' ? item.leaseOwner : null,
    leaseUntil: optionalNumber(item.leaseUntil),
    holdsSlot: item.holdsSlot === true,
    createdAt: Number(item.createdAt ?? 0),
    startedAt,
    finishedAt: isFinalStatus(status) ? finishedAt : null,
    result: resultOf(item, status, startedAt, finishedAt, attempt),
    expiresAt: expiresAt === null ? null : expiresAt * 1000,
    ...(typeof item.attemptBase === 'number' && { attemptBase: item.attemptBase }),
    ...(Array.isArray(item.history) && { history: item.history as JobResult[] }),
    ...(typeof item.createToken === 'string' && { createToken: item.createToken }),
    ...claimedRevisionOf(item),
    ...(item[CHECK_FAILED_ATTRIBUTE] === true && { checkFailed: true as const }),
    ...(typeof item.cancelRequestedAt === 'number' && { cancelRequestedAt: item.cancelRequestedAt }),
  };
}

function claimedRevisionOf(item: StoredItem): { claimedRevision?: ScheduleRevision } {
  const revision = item[CLAIMED_REVISION_ATTRIBUTE] as
    | { createdAt?: unknown; version?: unknown; firesFrom?: unknown }
    | undefined;
  if (typeof revision?.createdAt !== 'number' || typeof revision.version !== 'number') return {};
  const { createdAt, version, firesFrom } = revision;
  return { claimedRevision: { createdAt, version, ...(typeof firesFrom === 'number' && { firesFrom }) } };
}

function scheduleIdOf(item: StoredItem, key: { pk: string; sk: string }): string | null {
  if (typeof item.scheduleId === 'string') return item.scheduleId;
  return isFireJobKey(key) ? idFromPartitionKey(key.pk, FIRE_JOB_PREFIX) : null;
}

/** Final jobs carry their result; a retrying job carries the failed attempt's. */
function resultOf(
  item: StoredItem,
  status: JobStatus,
  startedAt: EpochMs | null,
  finishedAt: EpochMs | null,
  attempt: number,
): JobResult | null {
  if (finishedAt === null) return null;
  if (!isFinalStatus(status) && status !== 'retrying') return null;
  const result: JobResult = {
    outcome: isFinalStatus(status) ? status : 'error',
    startedAt,
    finishedAt,
    attempt,
  };
  if (item.returnValue !== undefined) result.returnValue = item.returnValue as JsonValue;
  if (item.error !== undefined) result.error = item.error as JobError;
  return result;
}

/** The attributes of a job that ended at `endedAt`: its result reads until `resultExpiresAt`, its item lives longer. */
export function endedRecordExpiry(endedAt: EpochMs, resultExpiresAt: EpochMs): StoredItem {
  return {
    [RESULT_EXPIRY_ATTRIBUTE]: ttlSeconds(resultExpiresAt),
    [TTL_ATTRIBUTE]: ttlSeconds(dedupeRecordExpiresAt(endedAt, resultExpiresAt)),
  };
}

/**
 * Reads treat a job whose result expired as absent; claims do not (its item is the dedupe record until
 * DynamoDB's TTL deletes it, up to days after `expiresAt`; Local never does).
 */
export function isExpired(item: StoredItem, now: EpochMs): boolean {
  const expiry = item[RESULT_EXPIRY_ATTRIBUTE];
  return typeof expiry === 'number' && expiry * 1000 <= now;
}

/** Applies `update` to the job's item while `condition` holds: the job as written, else undefined. */
export async function updateJobWhile(
  context: StoreContext,
  operation: string,
  jobId: string,
  update: Expressions,
  condition: string,
): Promise<Job | undefined> {
  try {
    const output = await context.update(operation, {
      Key: jobKey(jobId),
      ...update.buildUpdate(condition),
      ReturnValues: 'ALL_NEW',
    });
    return itemToJob(output.Attributes ?? {});
  } catch (error) {
    conditionFailure(error);
    return undefined;
  }
}
