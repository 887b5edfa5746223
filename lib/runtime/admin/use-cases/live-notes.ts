import { type DueNoteIdentity, liveNoteOf } from '../../../core/model/due-note';
import { isActive, type Schedule } from '../../../core/model/schedule';
import { liveNoteBuckets } from '../../../core/planning/live-note-buckets';
import { DEFAULT_NOTE_GRID, scheduleGrid } from '../../../core/planning/note-chunks';
import { DUE_NOTE_BOUNDS, type DueNote } from '../../../core/ports/due-notes';
import { compileTrigger } from '../../../core/triggers';
import type { ActionContext } from '../context';

/**
 * Every admin read of a schedule goes through here (ADR 0007, "What the admin API reads"; ADR 0008): an
 * active schedule answers `nextFireAt`, `lastFireAt` and `runs` from its chain's live note, not from its
 * item (whose fields are where the chain started).
 *
 * Cost: one cursor read per due shard among the schedules, then each bucket searched read once per shard
 * (`findLiveNotes`), whatever the number of schedules: the late buckets the shard's cursor leaves (a few
 * on time, at most `MAX_LATE_NOTE_BUCKETS`) and the natural bucket of each schedule's next chunk. None of
 * it for a paused or finished schedule.
 *
 * No live note found (a tick further behind than the search, or a note lost to its TTL after an outage
 * longer than two weeks): the item's own values answer, logged: where the chain started.
 */
export async function withLiveNotes(
  context: ActionContext,
  schedules: readonly Schedule[],
): Promise<Schedule[]> {
  const noted = schedules.filter(isActive);
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
      const search = liveNoteBuckets(
        scheduleGrid(DEFAULT_NOTE_GRID, schedule.id),
        compileTrigger(schedule.trigger),
        {
          cursor,
          now: context.now,
          chainFrom: schedule.nextFireAt ?? context.now,
          writtenAfter: schedule.firesFrom,
        },
      );
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
    if (!isActive(schedule)) return schedule;
    const note = found.get(schedule.id);
    if (!note) {
      context.deps.logger.warn('no live note found for an active schedule: where its chain started answers', {
        scheduleId: schedule.id,
        chain: schedule.chain,
        searchCut: truncated.has(schedule.id),
      });
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

function identityOf(schedule: Schedule): DueNoteIdentity {
  return { scheduleId: schedule.id, chain: schedule.chain ?? '' };
}
