import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { scheduleToItem } from '../../lib/adapters/dynamodb/schedule-items';
import type { EpochMs } from '../../lib/core/clock';
import type { JsonValue } from '../../lib/core/json';
import type { CoalescePolicy, Schedule, ScheduleDefinition } from '../../lib/core/model/schedule';
import {
  bucketOf,
  bucketStart,
  DEFAULT_NOTE_GRID,
  naturalBucket,
  scheduleGrid,
} from '../../lib/core/planning/note-chunks';
import { DUE_NOTE_BOUNDS, type DueNote } from '../../lib/core/ports/due-notes';
import { compileTrigger, parseTrigger, type TriggerSpec } from '../../lib/core/triggers';
import { inParallel, sleep } from './parallel';

export interface IntervalSchedule {
  id: string;
  task: string;
  intervalSeconds: number;
  startAt: EpochMs;
  /** Inclusive; open when absent. */
  endAt?: EpochMs;
  coalesce: CoalescePolicy;
  misfireGraceSeconds: number | null;
}

/** An `interval` trigger (validated by the same parser as the admin API). */
export function intervalTrigger(schedule: IntervalSchedule): TriggerSpec {
  return parseTrigger({
    type: 'interval',
    seconds: schedule.intervalSeconds,
    start_at: new Date(schedule.startAt).toISOString(),
    ...(schedule.endAt === undefined ? {} : { end_at: new Date(schedule.endAt).toISOString() }),
  });
}

/** Every fire time the trigger defines in `[from, to]`. */
export function fireTimesBetween(trigger: TriggerSpec, from: EpochMs, to: EpochMs): EpochMs[] {
  const source = compileTrigger(trigger);
  const fires: EpochMs[] = [];
  for (let fire = source.next(from); fire !== undefined && fire <= to; fire = source.next(fire + 1)) {
    fires.push(fire);
  }
  return fires;
}

/** Where seeded schedules are written: the bench runtime's store, and a document client on its table. */
export interface SeedTarget {
  store: DynamoDbStore;
  documents: DynamoDBDocumentClient;
  tableName: string;
  shards: number;
}

/**
 * Writes the schedules as if the admin API had added them a while ago (ADR 0008): each item names its
 * chain, and the chain's first note stands in its natural bucket (the one a reader on time reads it
 * from), with every shard's cursor before the earliest of them. So the first tick reads every note
 * on time (or, for a first fire already past its natural read time, as late as it is: like a schedule
 * added when its fire was that close). Items go in batches of 25, notes in writes of thousands: a
 * benchmark's seeding, not what it measures.
 */
export async function seedSchedules<S extends IntervalSchedule>(
  target: SeedTarget,
  schedules: readonly S[],
  options: { payloadOf?: (schedule: S, n: number) => JsonValue } = {},
): Promise<void> {
  const payloadOf = options.payloadOf ?? ((_schedule: S, n: number) => ({ n }));
  const now = Date.now();
  const grid = DEFAULT_NOTE_GRID;
  const seeded = schedules.map((schedule, n) => {
    const trigger = intervalTrigger(schedule);
    const nextFireAt = compileTrigger(trigger).next(schedule.startAt) ?? null;
    const stored: Schedule = {
      ...definitionOf(schedule, trigger, payloadOf(schedule, n)),
      nextFireAt,
      lastFireAt: null,
      runs: 0,
      firesFrom: now,
      version: 1,
      createdAt: now,
      updatedAt: now,
      chain: nextFireAt === null ? null : `b${n.toString(36)}`,
      startedRuns: 0,
      lastStartedFireAt: null,
    };
    return { stored, trigger };
  });
  const notes: DueNote[] = seeded.flatMap(({ stored, trigger }) => {
    const { nextFireAt, chain } = stored;
    if (nextFireAt === null || chain === null) return [];
    const bucket = naturalBucket(scheduleGrid(grid, stored.id), compileTrigger(trigger), nextFireAt);
    return [{ bucket, entry: { scheduleId: stored.id, chain, nextFireAt, runs: 0, lastFireAt: null } }];
  });
  const firstBucket = Math.min(bucketOf(grid, now), ...notes.map((note) => note.bucket));
  await Promise.all(
    Array.from({ length: target.shards }, (_, shard) => target.store.moveNoteCursor(shard, firstBucket - 1)),
  );
  await putItems(
    target,
    seeded.map(({ stored }) => scheduleToItem(stored)),
  );
  const perWrite = DUE_NOTE_BOUNDS.notesPerWrite;
  for (let start = 0; start < notes.length; start += perWrite) {
    await target.store.writeDueNotes({
      writer: `bench-seed.${start / perWrite}`,
      notes: notes.slice(start, start + perWrite),
      // Written as if at the cursor: no reader has passed the notes' buckets yet (the cursors stand before them).
      now: bucketStart(grid, firstBucket - 2),
    });
  }
}

function definitionOf(
  schedule: IntervalSchedule,
  trigger: TriggerSpec,
  payload: JsonValue,
): ScheduleDefinition {
  return {
    id: schedule.id,
    task: schedule.task,
    trigger,
    payload,
    coalesce: schedule.coalesce,
    misfireGraceSeconds: schedule.misfireGraceSeconds,
    maxJitterSeconds: 0,
    tags: ['bench'],
    paused: false,
    keepFinished: false,
    maxRuns: null,
  };
}

/** Puts items in BatchWriteItem calls of 25, 32 at a time, sending unprocessed ones again. */
async function putItems(target: SeedTarget, items: readonly Record<string, unknown>[]): Promise<void> {
  const batches = Math.ceil(items.length / 25);
  await inParallel(batches, 32, async (n) => {
    let pending = items.slice(n * 25, n * 25 + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let tries = 0; pending.length > 0; tries++) {
      if (tries > 20) throw new Error('seeding: items left unprocessed after 20 tries');
      const output = await target.documents.send(
        new BatchWriteCommand({ RequestItems: { [target.tableName]: pending } }),
      );
      pending = (output.UnprocessedItems?.[target.tableName] ?? []) as typeof pending;
      if (pending.length > 0) await sleep(50 * (tries + 1));
    }
  });
}
