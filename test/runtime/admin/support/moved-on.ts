import type { EpochMs } from '../../../../lib/core/clock';
import type { JobStore } from '../../../../lib/core/ports/job-store';
import type { ScheduleStore } from '../../../../lib/core/ports/schedule-store';
import { type Harness, MINUTE, T0 } from './harness';
import { tickOf } from './tick';

/** What `movedOn` needs of a harness: its calls, clock and queue, over any store (memory or DynamoDB). */
export type MovingHarness = Pick<Harness, 'ok' | 'clock' | 'queue' | 'events'> & {
  store: ScheduleStore & JobStore;
};

export const HOUR = 60 * MINUTE;
export const hourly = { type: 'cron', expression: '0 * * * *' } as const;
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

/**
 * Adds the schedules `ids` (hourly, at T0 = 09:00) and moves them on as the ticks do (ADR 0008): each add
 * sends 09:00 itself (due too soon for a tick) and notes 10:00; the tick at 09:46 sends 10:00 and notes
 * 11:00; the tick at 10:46 sends 11:00 and notes 12:00. The clock then stands at 11:10 (a tick ran): each item still
 * says where its chain started (next 09:00, no runs); its live note, next 12:00, 3 runs, last 11:00. For
 * the ids in `lost`, the tick at 10:46 lost the note of 12:00 (its put reported success but never
 * landed): they have none.
 */
export async function movedOn(
  h: MovingHarness,
  ids: readonly string[],
  options: { extra?: Record<string, unknown>; lost?: readonly string[] } = {},
): Promise<void> {
  const tick = tickOf(h);
  h.clock.set(T0);
  for (const id of ids) {
    await h.ok({ action: 'add_schedule', id, task: 'cleanup', trigger: hourly, ...options.extra });
  }
  h.clock.set(T0 + 46 * MINUTE);
  await tick();
  h.clock.set(T0 + HOUR + 46 * MINUTE);
  const lost = new Set(options.lost);
  const write = h.store.writeDueNotes.bind(h.store);
  h.store.writeDueNotes = (input) =>
    write({ ...input, notes: input.notes.filter((note) => !lost.has(note.entry.scheduleId)) });
  try {
    await tick();
  } finally {
    h.store.writeDueNotes = write;
  }
  // The ticks are on time: at 11:10 the shards' cursors have passed every bucket started.
  h.clock.set(T0 + 2 * HOUR + 10 * MINUTE);
  await tick();
}

/** What the live note of a schedule `movedOn` says at 11:10. */
export const fromNote = { next_fire_time: iso(T0 + 3 * HOUR), last_fire_time: iso(T0 + 2 * HOUR), runs: 3 };
