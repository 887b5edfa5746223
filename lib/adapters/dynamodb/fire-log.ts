import { randomUUID } from 'node:crypto';
import type { EpochMs } from '../../core/clock';
import type { JobRequest } from '../../core/ports/job-store';
import type { StoreContext, StoredItem } from './store-context';
import { keptFireOf, TASK_FIRE_LOG_PREFIX, TTL_ATTRIBUTE, ttlSeconds } from './table-design';

/**
 * A task's fire log (ADR 0001, "a task's fires in a log"): before the tick sends a round of first fires,
 * it notes them in one item per task and minute of fire time (`TASKFIRES#<task>`, sort key
 * `<minute start, 16 digits>#<unique>`), so that listing a task's jobs finds its fires' jobs without a
 * `jobs-by-task` entry per job: one write per round instead of one index write per job.
 */
export const FIRE_LOG_BUCKET_MS = 60_000;

/**
 * How long a log item is kept after its minute: a fire's job whose run or result outlives its log entry
 * is written into `jobs-by-task` instead (`fireLogCovers`).
 */
export const FIRE_LOG_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** Entries per item: at the longest ids (2 × 200 characters) an item stays far below DynamoDB's 400 KB. */
const MAX_ENTRIES_PER_ITEM = 300;

const BUCKET_DIGITS = 16;

export function fireLogBucketOf(fireTime: EpochMs): EpochMs {
  return Math.floor(fireTime / FIRE_LOG_BUCKET_MS) * FIRE_LOG_BUCKET_MS;
}

/** Whether the log entry of the fire at `fireTime` lasts until `until` (else its job is indexed). */
export function fireLogCovers(fireTime: EpochMs, until: EpochMs): boolean {
  return until <= fireLogBucketOf(fireTime) + FIRE_LOG_BUCKET_MS + FIRE_LOG_RETENTION_MS;
}

export function fireLogPartition(task: string): string {
  return `${TASK_FIRE_LOG_PREFIX}${task}`;
}

/** The sort keys of a minute's items start with it (the unique rest follows `#`). */
function bucketSortPrefix(bucket: EpochMs): string {
  return String(bucket).padStart(BUCKET_DIGITS, '0');
}

/** The sort key just above every item of the minute holding `time` (for a descending query from there). */
export function fireLogSortKeyUpTo(time: EpochMs): string {
  return `${bucketSortPrefix(fireLogBucketOf(time))}#~`;
}

/** A fire as its log lists it. */
export interface LoggedFire {
  scheduleId: string;
  fireTime: EpochMs;
}

/** The fires a log item lists. */
export function firesOfLogItem(item: StoredItem): LoggedFire[] {
  const bucket = bucketOfLogItem(item);
  const entries = Array.isArray(item.fires) ? item.fires : [];
  return entries.flatMap((entry) => {
    if (typeof entry !== 'string') return [];
    const at = entry.lastIndexOf('@');
    const offset = Number(entry.slice(at + 1));
    return at > 0 && Number.isSafeInteger(offset)
      ? [{ scheduleId: entry.slice(0, at), fireTime: bucket + offset }]
      : [];
  });
}

/** The minute bucket a log item belongs to: everything it lists fires within it. */
export function bucketOfLogItem(item: StoredItem): EpochMs {
  return Number(String(item.sk).slice(0, BUCKET_DIGITS));
}

/**
 * Notes the first fires among `jobs` (schedule fires, whose jobs live under their schedule) in their
 * tasks' logs; returns the ids of the jobs noted. Items are written in parallel; a failure throws.
 */
export async function logFiresToSend(
  context: StoreContext,
  jobs: readonly JobRequest[],
  now: EpochMs,
): Promise<ReadonlySet<string>> {
  const groups = new Map<string, { task: string; bucket: EpochMs; entries: string[] }>();
  const logged = new Set<string>();
  for (const job of jobs) {
    const fire = keptFireOf(job.id);
    if (!fire) continue;
    const bucket = fireLogBucketOf(fire.fireTime);
    const groupKey = `${bucket}\u0000${job.task}`;
    const group = groups.get(groupKey) ?? { task: job.task, bucket, entries: [] };
    group.entries.push(`${fire.scheduleId}@${fire.fireTime - bucket}`);
    groups.set(groupKey, group);
    logged.add(job.id);
  }
  const items: StoredItem[] = [];
  for (const { task, bucket, entries } of groups.values()) {
    for (let start = 0; start < entries.length; start += MAX_ENTRIES_PER_ITEM) {
      items.push({
        pk: fireLogPartition(task),
        sk: `${bucketSortPrefix(bucket)}#${randomUUID()}`,
        fires: entries.slice(start, start + MAX_ENTRIES_PER_ITEM),
        [TTL_ATTRIBUTE]: ttlSeconds(Math.max(now, bucket) + FIRE_LOG_BUCKET_MS + FIRE_LOG_RETENTION_MS),
      });
    }
  }
  await Promise.all(items.map((Item) => context.put('logFiresToSend', { Item })));
  return logged;
}
