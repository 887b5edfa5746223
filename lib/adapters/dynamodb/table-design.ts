/**
 * The single-table design shared by the DynamoDB adapter and the CDK stack.
 * Imports nothing from the AWS SDK: the infra layer may import this file (and only this file).
 * Rationale and per-operation costs: docs/adr/0001-table-design.md.
 */

import { parseFireJobId } from '../../core/model/job-id';

export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: KeyType;
}

export type IndexProjection = 'KEYS_ONLY' | 'ALL' | { include: string[] };

export interface GlobalSecondaryIndexDesign {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  projection: IndexProjection;
}

export const DEFAULT_SHARDS = 16;
/** The most shards a deployment may have (the construct's and the runtime's bound). */
export const MAX_SHARDS = 1_000;

/**
 * DynamoDB TTL attribute, in epoch SECONDS: when an item may be deleted. For a job that ended, that is when
 * its dedupe record ends, at least 14 days and a bit after its end (see `DEDUPE_RECORD_RETENTION_MS`).
 */
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * When a job's result expires, in epoch SECONDS (the domain's `expiresAt` is ms, rounded up to the second):
 * reads treat the job as absent from then on, while its item still dedupes deliveries until the TTL.
 */
export const RESULT_EXPIRY_ATTRIBUTE = 'visibleUntil';

export const TABLE_KEYS = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
} as const satisfies { partitionKey: KeyAttribute; sortKey: KeyAttribute };

/** Attribute names that carry index keys (each present only while the item belongs in the index). */
export const INDEX_ATTRIBUTES = {
  /** `JOBDUE#<n>` on a parked job. */
  dueShard: 'dueShard',
  /** The parked job's run time (ms). */
  dueAt: 'dueAt',
  /** `RUNNING#<n>` while a job runs. */
  runShard: 'runShard',
  leaseUntil: 'leaseUntil',
  /** `schedule` or `counter`: lets schedules and counters be listed without a Scan. */
  kind: 'kind',
  task: 'task',
  scheduleId: 'scheduleId',
  runAt: 'runAt',
  /** The status of a job that ended unsuccessfully (`UNSUCCESSFUL_OUTCOMES`), absent otherwise. */
  unsuccessful: 'unsuccessful',
  finishedAt: 'finishedAt',
} as const;

/**
 * The run time of a fire's job that its task's fire log lists (`fire-log.ts`): stored outside the
 * `jobs-by-task` sort key (`runAt`), so the job costs no index write. A retry writes `runAt`.
 */
export const LOGGED_RUN_AT_ATTRIBUTE = 'loggedRunAt';

/** A fire's job: the schedule revision its run's definition was claimed under (`Job.claimedRevision`). */
export const CLAIMED_REVISION_ATTRIBUTE = 'claimedRevision';
/** A fire's job whose claim's check found its schedule changed (`Job.checkFailed`). */
export const CHECK_FAILED_ATTRIBUTE = 'checkFailed';

export const INDEX_NAMES = {
  due: 'due',
  running: 'running',
  byKind: 'by-kind',
  jobsByTask: 'jobs-by-task',
  jobsBySchedule: 'jobs-by-schedule',
  unsuccessfulJobs: 'unsuccessful-jobs',
} as const;

export const GLOBAL_SECONDARY_INDEXES: readonly GlobalSecondaryIndexDesign[] = [
  {
    // Parked jobs, by shard, ordered by due time (keys only).
    indexName: INDEX_NAMES.due,
    partitionKey: { name: INDEX_ATTRIBUTES.dueShard, type: 'S' },
    sortKey: { name: INDEX_ATTRIBUTES.dueAt, type: 'N' },
    projection: 'KEYS_ONLY',
  },
  {
    // Running jobs, by shard, ordered by lease end: reaping and counter repair.
    indexName: INDEX_NAMES.running,
    partitionKey: { name: INDEX_ATTRIBUTES.runShard, type: 'S' },
    sortKey: { name: INDEX_ATTRIBUTES.leaseUntil, type: 'N' },
    projection: { include: ['task', 'holdsSlot'] },
  },
  {
    // Schedules (by id) and task counters: what filters need is projected, ticks never write it.
    indexName: INDEX_NAMES.byKind,
    partitionKey: { name: INDEX_ATTRIBUTES.kind, type: 'S' },
    sortKey: { name: TABLE_KEYS.partitionKey.name, type: 'S' },
    projection: { include: ['task', 'tags', 'paused'] },
  },
  {
    // Jobs of a task, newest run time first; not schedules and counters (no `runAt`), nor the fires
    // their task's log lists (`loggedRunAt` instead, ADR 0001).
    indexName: INDEX_NAMES.jobsByTask,
    partitionKey: { name: INDEX_ATTRIBUTES.task, type: 'S' },
    sortKey: { name: INDEX_ATTRIBUTES.runAt, type: 'N' },
    projection: 'KEYS_ONLY',
  },
  {
    // Jobs of a schedule, newest run time first.
    indexName: INDEX_NAMES.jobsBySchedule,
    partitionKey: { name: INDEX_ATTRIBUTES.scheduleId, type: 'S' },
    sortKey: { name: INDEX_ATTRIBUTES.runAt, type: 'N' },
    projection: 'KEYS_ONLY',
  },
  {
    // Jobs that ended in error, missed_start_deadline, abandoned or cancelled, by that status, latest
    // finish first. Sparse: a job that succeeds never has the key, so it costs successful jobs nothing.
    indexName: INDEX_NAMES.unsuccessfulJobs,
    partitionKey: { name: INDEX_ATTRIBUTES.unsuccessful, type: 'S' },
    sortKey: { name: INDEX_ATTRIBUTES.finishedAt, type: 'N' },
    projection: 'KEYS_ONLY',
  },
];

export interface ItemKey {
  pk: string;
  sk: string;
}

/** One string per item key (a schedule's fire jobs share their `pk`): what `batchGet` results are keyed by. */
export function itemKeyString(key: ItemKey): string {
  return `${key.pk}\u0000${key.sk}`;
}

export const SCHEDULE_PREFIX = 'SCHEDULE#';
export const JOB_PREFIX = 'JOB#';
export const TASK_PREFIX = 'TASK#';

export function scheduleKey(id: string): ItemKey {
  return { pk: `${SCHEDULE_PREFIX}${id}`, sk: 'SCHEDULE' };
}

/** The record a finished schedule's cleanup leaves (ADR 0004); a prefix of its own for IAM's LeadingKeys. */
export const REMOVED_SCHEDULE_PREFIX = 'REMOVED#';

export function removedScheduleKey(id: string): ItemKey {
  return { pk: `${REMOVED_SCHEDULE_PREFIX}${id}`, sk: 'REMOVED' };
}

/** A task's fire log (`fire-log.ts`, ADR 0001): written by the tick and dispatchers, read by the admin. */
export const TASK_FIRE_LOG_PREFIX = 'TASKFIRES#';

/** The lease of one due shard (ADR 0006): never in an index, written only by the tick and dispatchers. */
export const DUE_SHARD_LEASE_PREFIX = 'SHARDLEASE#';

export function dueShardLeaseKey(shard: number): ItemKey {
  return { pk: `${DUE_SHARD_LEASE_PREFIX}${shard}`, sk: 'LEASE' };
}

/**
 * Due notes (ADR 0007, 0008): one partition per due shard and 10 s bucket of read time, items
 * `<writer>#<seq>` of many entries each (`due-note-items.ts`); never in an index, written by the
 * dispatchers and the admin API (a chain's first note), read by the dispatchers.
 */
export const DUE_NOTES_PREFIX = 'DUENOTES#';

export function dueNotesPartition(shard: number, bucket: number): string {
  return `${DUE_NOTES_PREFIX}${shard}#${bucket}`;
}

/** The cursor of a shard's due notes (ADR 0007): the last bucket its readers fully processed. */
export const DUE_CURSOR_PREFIX = 'DUECURSOR#';

export function dueCursorKey(shard: number): ItemKey {
  return { pk: `${DUE_CURSOR_PREFIX}${shard}`, sk: 'CURSOR' };
}

/**
 * The partition of a schedule's fire jobs (ADR 0001, "fire jobs under their schedule"): one item per fire
 * time, sort key `JOB#<fire time, 16 digits>`, so a schedule's jobs are listed without an index.
 */
export const FIRE_JOB_PREFIX = 'FIRES#';
const FIRE_SORT_PREFIX = 'JOB#';
const FIRE_TIME_DIGITS = 16;

/** The key of job `id`: a fire's under its schedule's partition, any other job's in a partition of its own. */
export function jobKey(id: string): ItemKey {
  const fire = parseFireJobId(id);
  if (!fire) return { pk: `${JOB_PREFIX}${id}`, sk: 'JOB' };
  return { pk: `${FIRE_JOB_PREFIX}${fire.scheduleId}`, sk: fireJobSortKey(fire.fireTime) };
}

/** The schedule and fire time of job `id` when `jobKey` keeps it under its schedule, else undefined. */
export function keptFireOf(id: string): { scheduleId: string; fireTime: number } | undefined {
  const key = jobKey(id);
  if (!isFireJobKey(key)) return undefined;
  return { scheduleId: idFromPartitionKey(key.pk, FIRE_JOB_PREFIX), fireTime: fireTimeOfSortKey(key.sk) };
}

export function isFireJobKey(key: ItemKey): boolean {
  return key.pk.startsWith(FIRE_JOB_PREFIX);
}

/** The sort key of the fire at `fireTime` in its schedule's partition. */
export function fireJobSortKey(fireTime: number): string {
  return `${FIRE_SORT_PREFIX}${String(fireTime).padStart(FIRE_TIME_DIGITS, '0')}`;
}

/** The fire time a fire job's sort key holds. */
export function fireTimeOfSortKey(sk: string): number {
  return Number(sk.slice(FIRE_SORT_PREFIX.length));
}

/** The job id a job item's key stands for (the inverse of `jobKey`). */
export function jobIdFromKey(key: ItemKey): string {
  if (!isFireJobKey(key)) return idFromPartitionKey(key.pk, JOB_PREFIX);
  return `${idFromPartitionKey(key.pk, FIRE_JOB_PREFIX)}@${fireTimeOfSortKey(key.sk)}`;
}

export function taskCounterKey(task: string): ItemKey {
  return { pk: `${TASK_PREFIX}${task}`, sk: 'COUNTER' };
}

/** Prefix of the sort keys of a task's waiting line, in its counter's partition (`WAIT#<linePosition>`). */
export const WAITING_PREFIX = 'WAIT#';

export function waitingEntryKey(task: string, position: string): ItemKey {
  return { pk: `${TASK_PREFIX}${task}`, sk: `${WAITING_PREFIX}${position}` };
}

/** Prefix of the sort keys of a task's woken entries, beside its line (`WOKEN#<linePosition>`, ADR 0009). */
export const WOKEN_PREFIX = 'WOKEN#';

export function wokenEntryKey(task: string, position: string): ItemKey {
  return { pk: `${TASK_PREFIX}${task}`, sk: `${WOKEN_PREFIX}${position}` };
}

/** The id inside a `pk` built by one of the key builders. */
export function idFromPartitionKey(pk: string, prefix: string): string {
  if (!pk.startsWith(prefix)) throw new Error(`key '${pk}' does not start with '${prefix}'`);
  return pk.slice(prefix.length);
}

/** Stable shard of an id: FNV-1a (32 bit) modulo `shards`. Never change it: stored items depend on it. */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

export const shardKeys = {
  dueJob: (n: number) => `JOBDUE#${n}`,
  running: (n: number) => `RUNNING#${n}`,
} as const;

export const ITEM_KINDS = { schedule: 'schedule', counter: 'counter' } as const;

/** Epoch seconds for the TTL attribute: rounded up, so an item never expires before its ms instant. */
export function ttlSeconds(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000);
}

/** The input of `CreateTable` (on-demand billing) for tests and the local platform; structurally an SDK input. */
export function createTableInput(tableName: string) {
  const attributes = new Map<string, KeyType>();
  const keyAttribute = (key: KeyAttribute) => {
    attributes.set(key.name, key.type);
  };
  keyAttribute(TABLE_KEYS.partitionKey);
  keyAttribute(TABLE_KEYS.sortKey);
  for (const index of GLOBAL_SECONDARY_INDEXES) {
    keyAttribute(index.partitionKey);
    if (index.sortKey) keyAttribute(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey.name, KeyType: 'HASH' as const },
      { AttributeName: TABLE_KEYS.sortKey.name, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: GLOBAL_SECONDARY_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
        ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
      ],
      Projection: sdkProjection(index.projection),
    })),
  };
}

function sdkProjection(projection: IndexProjection) {
  if (projection === 'KEYS_ONLY') return { ProjectionType: 'KEYS_ONLY' as const };
  if (projection === 'ALL') return { ProjectionType: 'ALL' as const };
  return { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: projection.include };
}
