import { expect } from 'vitest';
import { shardOf } from '../../../../lib/adapters/dynamodb/table-design';
import type { EpochMs } from '../../../../lib/core/clock';
import { bucketOf, DEFAULT_NOTE_GRID, firstOpenBucket } from '../../../../lib/core/planning/note-chunks';
import type { ScheduleStore } from '../../../../lib/core/ports/schedule-store';
import { type Harness, MINUTE, SECOND, T0 } from './harness';

/**
 * Schedules moved on by due notes (ADR 0007), set up through the store port as the tick will leave them:
 * converted at their first fire, their chain one hour further in a note.
 */
export type NotedHarness = Pick<Harness, 'ok' | 'clock'> & { store: ScheduleStore };

export const HOUR = 60 * MINUTE;
export const hourly = { type: 'cron', expression: '0 * * * *' } as const;
/** The first fire of `hourly` after T0 (09:00). */
export const F1 = T0 + HOUR;
const grid = DEFAULT_NOTE_GRID;
export const iso = (instant: EpochMs) => new Date(instant).toISOString().replace('.000Z', 'Z');

export interface WireSchedule {
  id: string;
  next_fire_time: string | null;
  last_fire_time: string | null;
  runs: number;
  version: number;
  finished: boolean;
  paused: boolean;
}

let writers = 0;

/** Writes `id`'s note of `nextFireAt` where a writer at `now` puts it (its natural bucket: isolated, 840 s ahead). */
async function note(h: NotedHarness, id: string, nextFireAt: EpochMs, runs: number, now: EpochMs) {
  const schedule = await h.store.getSchedule(id);
  if (!schedule) throw new Error(`no schedule ${id}`);
  const bucket = Math.max(bucketOf(grid, nextFireAt - 840 * SECOND), firstOpenBucket(grid, now));
  const entry = {
    scheduleId: id,
    version: schedule.version,
    createdAt: schedule.createdAt,
    nextFireAt,
    runs,
    lastFireAt: nextFireAt - HOUR,
  };
  await h.store.writeDueNotes({ writer: `test-${writers++}`, notes: [{ bucket, entry }], now });
  return bucket;
}

/**
 * Adds `id` (hourly, first fire 10:00) and moves it on as ticks on notes would: the conversion's tick at
 * 09:58:30 sends 10:00 and notes 11:00; the note's reader at 10:46 sends 11:00 and notes 12:00. The clock
 * then stands at 11:10: the item says next 10:00, 1 run; the live note next 12:00, 2 runs, last 11:00.
 * With `lost`, the reader at 10:46 lost the note of 12:00 (written behind the cursor, say): there is none.
 */
export async function notedSchedule(
  h: NotedHarness,
  id: string,
  extra: Record<string, unknown> = {},
  lost = false,
) {
  h.clock.set(T0);
  await h.ok({ action: 'add_schedule', id, task: 'cleanup', trigger: hourly, ...extra });
  const converting = F1 - 90 * SECOND;
  const first = await note(h, id, F1 + HOUR, 1, converting);
  const converted = await h.store.convertScheduleToNotes({
    id,
    seenVersion: 1,
    seenCreatedAt: T0,
    seenNextFireAt: F1,
    runs: 1,
    lastFireAt: F1,
    now: converting,
  });
  expect(converted).toBe(true);
  const reading = F1 + 46 * MINUTE;
  if (!lost) await note(h, id, F1 + 2 * HOUR, 2, reading);
  // The shard's reader is on time: at 11:10 it has read every bucket started.
  const now = F1 + 70 * MINUTE;
  expect(bucketOf(grid, now)).toBeGreaterThan(first);
  await h.store.moveNoteCursor(shardOf(id, h.store.dueShards), bucketOf(grid, now));
  h.clock.set(now);
}

export const fromNote = { next_fire_time: iso(F1 + 2 * HOUR), last_fire_time: iso(F1 + HOUR), runs: 2 };
