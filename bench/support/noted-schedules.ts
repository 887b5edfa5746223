import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import type { EpochMs } from '../../lib/core/clock';
import {
  bucketOf,
  DEFAULT_NOTE_GRID,
  firstOpenBucket,
  naturalBucket,
} from '../../lib/core/planning/note-chunks';
import type { DueNote } from '../../lib/core/ports/due-notes';
import { DUE_NOTE_BOUNDS } from '../../lib/core/ports/due-notes';
import { compileTrigger } from '../../lib/core/triggers';
import { inParallel } from './parallel';

/**
 * Hands seeded schedules over to due notes as a tick's first advance would (ADR 0007): each gets its
 * note, written through the store in the same calls the tick makes, then its conversion. The fires they
 * stand at have not been sent (runs 0). Resolves with the start of the last bucket written: a tick reads
 * the notes from then on.
 */
export async function handOverToNotes(
  store: DynamoDbStore,
  shards: number,
  ids: readonly string[],
): Promise<EpochMs> {
  const now = Date.now();
  const open = firstOpenBucket(DEFAULT_NOTE_GRID, now);
  // As a tick does before it writes its first notes: every shard gets a cursor, before the notes' buckets.
  await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      store.moveNoteCursor(shard, bucketOf(DEFAULT_NOTE_GRID, now)),
    ),
  );
  const schedules = await Promise.all(ids.map((id) => store.getSchedule(id)));
  const notes: DueNote[] = schedules.map((schedule, n) => {
    if (!schedule || schedule.nextFireAt === null) throw new Error(`schedule ${ids[n]} has no next fire`);
    const source = compileTrigger(schedule.trigger);
    return {
      bucket: Math.max(naturalBucket(DEFAULT_NOTE_GRID, source, schedule.nextFireAt), open),
      entry: {
        scheduleId: schedule.id,
        version: schedule.version,
        createdAt: schedule.createdAt,
        nextFireAt: schedule.nextFireAt,
        runs: schedule.runs,
        lastFireAt: schedule.lastFireAt,
      },
    };
  });
  const perWrite = DUE_NOTE_BOUNDS.notesPerWrite;
  for (let start = 0; start < notes.length; start += perWrite) {
    await store.writeDueNotes({
      writer: `bench-seed.${start / perWrite}`,
      notes: notes.slice(start, start + perWrite),
      now,
    });
  }
  await inParallel(notes.length, 32, async (n) => {
    const { entry } = notes[n] as DueNote;
    const converted = await store.convertScheduleToNotes({
      id: entry.scheduleId,
      seenVersion: entry.version,
      seenCreatedAt: entry.createdAt,
      seenNextFireAt: entry.nextFireAt,
      runs: entry.runs,
      lastFireAt: entry.lastFireAt,
      now: Date.now(),
    });
    if (!converted) throw new Error(`schedule ${entry.scheduleId} was not handed over to notes`);
  });
  const lastBucket = Math.max(...notes.map((note) => note.bucket));
  return lastBucket * DEFAULT_NOTE_GRID.bucketMs;
}
