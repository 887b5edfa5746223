import type { JsonValue } from '../../core/json';
import type { Metadata } from '../../core/model/metadata';
import { DEFAULT_PRIORITY, type Priority } from '../../core/model/priority';
import type { RunSettingOverrides } from '../../core/model/run-settings';
import type { CoalescePolicy, CodeManagement, Schedule, ScheduleDefinition } from '../../core/model/schedule';
import type { TriggerSpec } from '../../core/triggers/schema';
import type { StoredItem } from './store-context';
import { ITEM_KINDS, type ItemKey, idFromPartitionKey, SCHEDULE_PREFIX, scheduleKey } from './table-design';

/**
 * A schedule item stores each fact once: the id lives in `pk`; no index but `by-kind` holds it (its
 * chain's notes move it on, ADR 0008). Absent optional fields mean `null` (`runs` and `startedRuns`: 0).
 */
export function scheduleToItem(schedule: Schedule): StoredItem {
  return {
    ...scheduleKey(schedule.id),
    kind: ITEM_KINDS.schedule,
    ...definitionAttributes(schedule),
    paused: schedule.paused,
    version: schedule.version,
    createdAt: schedule.createdAt,
    updatedAt: schedule.updatedAt,
    firesFrom: schedule.firesFrom,
    ...(schedule.startedRuns > 0 && { startedRuns: schedule.startedRuns }),
    ...(schedule.lastStartedFireAt !== null && { lastStartedFireAt: schedule.lastStartedFireAt }),
    ...positionAttributes(schedule),
  };
}

/** Where it stands (`nextFireAt`, `lastFireAt`, `runs`) and its chain, absent when `null` (or 0). */
export function positionAttributes(
  position: Pick<Schedule, 'nextFireAt' | 'lastFireAt' | 'runs' | 'chain'>,
): StoredItem {
  return {
    ...(position.nextFireAt !== null && { nextFireAt: position.nextFireAt }),
    ...(position.lastFireAt !== null && { lastFireAt: position.lastFireAt }),
    ...(position.runs > 0 && { runs: position.runs }),
    ...(position.chain !== null && { chain: position.chain }),
  };
}

/** The attributes `positionAttributes` may write, each removed when absent from it. */
export const POSITION_ATTRIBUTES = ['nextFireAt', 'lastFireAt', 'runs', 'chain'];

/** The owner-controlled attributes, as stored (`misfireGraceSeconds`, `maxRuns` absent for `null`; `keepFinished` for false; `priority` for normal; `managedBy` for the admin API's). */
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
  if (definition.managedBy) attributes.managedBy = definition.managedBy;
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
  'managedBy',
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
    ...(typeof item.managedBy === 'object' &&
      item.managedBy !== null && { managedBy: item.managedBy as CodeManagement }),
    runs: Number(item.runs ?? 0),
    nextFireAt: optionalNumber(item.nextFireAt),
    lastFireAt: optionalNumber(item.lastFireAt),
    firesFrom: Number(item.firesFrom),
    version: Number(item.version),
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
    chain: typeof item.chain === 'string' ? item.chain : null,
    startedRuns: Number(item.startedRuns ?? 0),
    lastStartedFireAt: optionalNumber(item.lastStartedFireAt),
  };
}

export function scheduleKeyOf(item: StoredItem): ItemKey {
  return { pk: String(item.pk), sk: String(item.sk) };
}

export function optionalNumber(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
