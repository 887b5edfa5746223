import { type DueNoteIdentity, liveNoteOf } from '../../../core/model/due-note';
import type { Schedule } from '../../../core/model/schedule';
import { liveNoteBuckets } from '../../../core/planning/live-note-buckets';
import { DEFAULT_NOTE_GRID } from '../../../core/planning/note-chunks';
import { DUE_NOTE_BOUNDS, type DueNote } from '../../../core/ports/due-notes';
import type { NotedState } from '../../../core/ports/schedule-store';
import { compileTrigger } from '../../../core/triggers';
import type { ActionContext } from '../context';

/**
 * Every admin read of a schedule goes through here (ADR 0007, "What the admin API reads"): a schedule
 * `onNotes` answers `nextFireAt`, `lastFireAt` and `runs` from its live note, not from its item (whose
 * fields are those of its conversion). It keeps `onNotes`, so a write of it carries the same values
 * (`notedStateOf`).
 *
 * Cost: one cursor read per due shard among the schedules, then each bucket searched read once per shard
 * (`findLiveNotes`), whatever the number of schedules: the late buckets the shard's cursor leaves (a few
 * on time, at most `MAX_LATE_NOTE_BUCKETS`) and the natural bucket of each schedule's next chunk. None of
 * it for a schedule that is not on notes (every schedule while `dueNotes` is off).
 *
 * No live note found (a tick further behind than the search, a note lost to the placement margin or to
 * its TTL after an outage longer than two weeks, or the chain's last fire sent and the item not yet finished by the tick):
 * the item's own values answer, logged. They are the conversion's: `runs` and `lastFireAt` as they were,
 * `nextFireAt` a fire already sent. A write from them makes the schedule item-indexed again from there:
 * the fires since its conversion are planned again under the same job ids (dropped at claim while their
 * records exist), and counted in `runs` again.
 */
export async function withLiveNotes(
  context: ActionContext,
  schedules: readonly Schedule[],
): Promise<Schedule[]> {
  const noted = schedules.filter((schedule) => schedule.onNotes && schedule.nextFireAt !== null);
  if (noted.length === 0) return [...schedules];
  const store = context.deps.scheduleStore;
  const byShard = new Map<number, Schedule[]>();
  for (const schedule of noted) {
    const shard = store.noteShardOf(schedule.id);
    byShard.set(shard, [...(byShard.get(shard) ?? []), schedule]);
  }
  const found = new Map<string, DueNote>();
  const truncated = new Set<string>();
  for (const [shard, ofShard] of byShard) {
    const cursor = await store.readNoteCursor(shard);
    const buckets = new Set<number>();
    for (const schedule of ofShard) {
      const search = liveNoteBuckets(DEFAULT_NOTE_GRID, compileTrigger(schedule.trigger), {
        cursor,
        now: context.now,
        chainFrom: schedule.nextFireAt ?? context.now,
        writtenAfter: schedule.updatedAt,
      });
      for (const bucket of search.buckets) buckets.add(bucket);
      if (search.truncated) truncated.add(schedule.id);
    }
    const identities = ofShard.map(identityOf);
    const sorted = [...buckets].sort((a, b) => a - b);
    for (let start = 0; start < sorted.length; start += DUE_NOTE_BOUNDS.liveNoteBuckets) {
      const part = sorted.slice(start, start + DUE_NOTE_BOUNDS.liveNoteBuckets);
      const notes = await store.findLiveNotes({ shard, schedules: identities, buckets: part });
      for (const identity of identities) {
        const candidates = [found.get(identity.scheduleId), notes.get(identity.scheduleId)];
        const live = liveNoteOf(
          candidates.filter((note) => note !== undefined),
          identity,
        );
        if (live) found.set(identity.scheduleId, live);
      }
    }
  }
  return schedules.map((schedule) => {
    if (!schedule.onNotes || schedule.nextFireAt === null) return schedule;
    const note = found.get(schedule.id);
    if (!note) {
      context.deps.logger.warn(
        "no live note found for a schedule on due notes: its item's fire times answer",
        {
          scheduleId: schedule.id,
          version: schedule.version,
          searchCut: truncated.has(schedule.id),
        },
      );
      return schedule;
    }
    const { nextFireAt, lastFireAt, runs } = note.entry;
    return { ...schedule, nextFireAt, lastFireAt, runs };
  });
}

/** `withLiveNotes` of one schedule. */
export async function withLiveNote(context: ActionContext, schedule: Schedule): Promise<Schedule> {
  const [read] = await withLiveNotes(context, [schedule]);
  return read ?? schedule;
}

/** The schedule and its live note's values, as every admin change reads it first (undefined when gone). */
export async function readWithLiveNote(context: ActionContext, id: string): Promise<Schedule | undefined> {
  const schedule = await context.deps.scheduleStore.getSchedule(id);
  return schedule && withLiveNote(context, schedule);
}

/** What a write of a schedule read through `withLiveNotes` carries onto its item (undefined: not on notes). */
export function notedStateOf(schedule: Schedule): NotedState | undefined {
  if (!schedule.onNotes || schedule.nextFireAt === null) return undefined;
  const { version: seenVersion, nextFireAt, runs, lastFireAt } = schedule;
  return { seenVersion, nextFireAt, runs, lastFireAt };
}

function identityOf(schedule: Schedule): DueNoteIdentity {
  return { scheduleId: schedule.id, version: schedule.version, createdAt: schedule.createdAt };
}
