import type { EpochMs } from '../../core/clock';
import type { JsonValue } from '../../core/json';
import type { Metadata } from '../../core/model/metadata';
import { DEFAULT_PRIORITY, type Priority } from '../../core/model/priority';
import type { RunSettingOverrides } from '../../core/model/run-settings';
import type { CoalescePolicy, Schedule, ScheduleDefinition } from '../../core/model/schedule';
import type { TriggerSpec } from '../../core/triggers/schema';
import type { StoredItem } from './store-context';
import {
  ITEM_KINDS,
  type ItemKey,
  idFromPartitionKey,
  SCHEDULE_PREFIX,
  scheduleKey,
  shardKeys,
  shardOf,
} from './table-design';

/**
 * A schedule item stores each fact once: the id lives in `pk`, the next fire time in `dueAt` (the due
 * index's sort key), and `dueShard` is present only while the schedule is active (not paused, has a next fire)
 * and item-indexed: a schedule on due notes (ADR 0007) keeps `dueAt` without `dueShard` (`onNotes`, derived
 * when read; written only by the conversion). Absent optional fields mean `null`.
 */
export function scheduleToItem(schedule: Schedule, shards: number): StoredItem {
  const item: StoredItem = {
    ...scheduleKey(schedule.id),
    kind: ITEM_KINDS.schedule,
    ...definitionAttributes(schedule),
    paused: schedule.paused,
    version: schedule.version,
    createdAt: schedule.createdAt,
    updatedAt: schedule.updatedAt,
    firesFrom: schedule.firesFrom,
  };
  if (schedule.nextFireAt !== null) item.dueAt = schedule.nextFireAt;
  if (isActive(schedule.paused, schedule.nextFireAt)) item.dueShard = dueShardOf(schedule.id, shards);
  if (schedule.lastFireAt !== null) item.lastFireAt = schedule.lastFireAt;
  if (schedule.runs > 0) item.runs = schedule.runs;
  if (schedule.leaseOwner !== null) item.leaseOwner = schedule.leaseOwner;
  if (schedule.leaseUntil !== null) item.leaseUntil = schedule.leaseUntil;
  return item;
}

/** The owner-controlled attributes, as stored (`misfireGraceSeconds`, `maxRuns` absent for `null`; `keepFinished` for false; `priority` for normal). */
export function definitionAttributes(definition: Omit<ScheduleDefinition, 'id' | 'paused'>): StoredItem {
  const attributes: StoredItem = {
    task: definition.task,
    trigger: definition.trigger,
    payload: definition.payload,
    coalesce: definition.coalesce,
    maxJitterSeconds: definition.maxJitterSeconds,
    tags: definition.tags,
  };
  if (definition.misfireGraceSeconds !== null)
    attributes.misfireGraceSeconds = definition.misfireGraceSeconds;
  if (definition.overrides) attributes.overrides = definition.overrides;
  if (definition.metadata) attributes.metadata = definition.metadata;
  if (definition.description) attributes.description = definition.description;
  if (definition.priority && definition.priority !== DEFAULT_PRIORITY)
    attributes.priority = definition.priority;
  if (definition.keepFinished) attributes.keepFinished = true;
  if (definition.maxRuns !== null) attributes.maxRuns = definition.maxRuns;
  return attributes;
}

/** The optional definition attributes, absent when the schedule has none (a replace removes them). */
export const OPTIONAL_DEFINITION_ATTRIBUTES = [
  'misfireGraceSeconds',
  'overrides',
  'metadata',
  'description',
  'priority',
  'keepFinished',
  'maxRuns',
];

export function itemToSchedule(item: StoredItem): Schedule {
  return {
    id: idFromPartitionKey(String(item.pk), SCHEDULE_PREFIX),
    task: String(item.task),
    trigger: item.trigger as TriggerSpec,
    payload: (item.payload ?? null) as JsonValue,
    coalesce: item.coalesce as CoalescePolicy,
    misfireGraceSeconds: optionalNumber(item.misfireGraceSeconds),
    maxJitterSeconds: Number(item.maxJitterSeconds ?? 0),
    tags: (item.tags as string[] | undefined) ?? [],
    paused: item.paused === true,
    ...(item.overrides !== undefined && { overrides: item.overrides as RunSettingOverrides }),
    ...(item.metadata !== undefined && { metadata: item.metadata as Metadata }),
    ...(typeof item.description === 'string' && { description: item.description }),
    ...(typeof item.priority === 'string' && { priority: item.priority as Priority }),
    keepFinished: item.keepFinished === true,
    maxRuns: optionalNumber(item.maxRuns),
    runs: Number(item.runs ?? 0),
    nextFireAt: optionalNumber(item.dueAt),
    lastFireAt: optionalNumber(item.lastFireAt),
    // Items written before `firesFrom` existed: their definition has held since they were added.
    firesFrom: optionalNumber(item.firesFrom) ?? Number(item.createdAt),
    version: Number(item.version),
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
    leaseOwner: typeof item.leaseOwner === 'string' ? item.leaseOwner : null,
    leaseUntil: optionalNumber(item.leaseUntil),
    // Derived, never stored: out of the due index with its `dueAt` kept and not paused (ADR 0007).
    ...(isNotedItem(item) && { onNotes: true }),
  };
}

/** A schedule item on due notes: not paused, its `dueAt` kept, out of the due index (no `dueShard`). */
export function isNotedItem(item: StoredItem): boolean {
  return item.paused !== true && item.dueAt !== undefined && item.dueShard === undefined;
}

export function isActive(paused: boolean, nextFireAt: EpochMs | null): boolean {
  return !paused && nextFireAt !== null;
}

export function dueShardOf(scheduleId: string, shards: number): string {
  return shardKeys.dueSchedule(shardOf(scheduleId, shards));
}

export function scheduleKeyOf(item: StoredItem): ItemKey {
  return { pk: String(item.pk), sk: String(item.sk) };
}

export function optionalNumber(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
