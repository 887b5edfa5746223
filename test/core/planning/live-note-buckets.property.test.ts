import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { liveNoteBuckets, MAX_LATE_NOTE_BUCKETS } from '../../../lib/core/planning/live-note-buckets';
import {
  bucketOf,
  DEFAULT_NOTE_GRID,
  firstOpenBucket,
  planNoteChunk,
  scheduleGrid,
} from '../../../lib/core/planning/note-chunks';
import { compileTrigger } from '../../../lib/core/triggers';
import type { TriggerSpec } from '../../../lib/core/triggers/schema';

/**
 * Where the admin API looks for a schedule's live note (ADR 0007): one shard's chain, read by ticks a
 * minute apart that may skip several minutes, started by a conversion whose advance sent the fires inside
 * the lookahead. At any instant between ticks, the unread note of the chain is in the buckets searched,
 * as long as the reader is less than `MAX_LATE_NOTE_BUCKETS` behind (else the search says it was cut).
 */

const grid = DEFAULT_NOTE_GRID;
/** Schedule ids: their chunks start at every phase of the grid (`scheduleGrid`). */
const scheduleIdArb = fc.integer({ min: 0, max: 10_000 }).map((n) => `s${n}`);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const LOOKAHEAD = 90 * SECOND;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: EpochMs) => new Date(ms).toISOString();

const triggerArb: fc.Arbitrary<TriggerSpec> = fc
  .oneof(
    fc
      .integer({ min: 1, max: 7_200 })
      .chain((seconds) =>
        fc
          .integer({ min: 0, max: 600 })
          .map((offset) => ({ type: 'interval', seconds, start_at: iso(T0 + offset * SECOND) })),
      ),
    fc
      .constantFrom('*/7 * * * * *', '0 * * * * *', '30 */5 * * * *', '0 0 * * * *', '0 15 * * * *')
      .map((expression) => ({ type: 'cron', expression })),
    fc.array(fc.integer({ min: 0, max: 3 * 3_600 }), { minLength: 1, maxLength: 6 }).map((offsets) => ({
      type: 'or',
      triggers: offsets.map((s) => ({ type: 'date', run_at: iso(T0 + s * SECOND) })),
    })),
  )
  .map((spec) => spec as unknown as TriggerSpec);

describe('liveNoteBuckets (ADR 0007)', () => {
  it('holds the bucket of the unread note of a chain at every instant, late ticks included', () => {
    fc.assert(
      fc.property(
        triggerArb,
        fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 30, maxLength: 30 }),
        fc.integer({ min: 0, max: 59 }),
        scheduleIdArb,
        (spec, gaps, querySecond, scheduleId) => {
          const source = compileTrigger(spec);
          // The conversion at T0: its advance sent the fires inside the lookahead, and noted the next.
          const chainFrom = source.next(T0);
          if (chainFrom === undefined) return;
          let next: EpochMs | undefined = chainFrom;
          while (next !== undefined && next <= T0 + LOOKAHEAD) next = source.next(next + 1);
          if (next === undefined) return;
          const planFirst = planNoteChunk({
            scheduleId,
            source,
            nextFireAt: next,
            policies: { coalesce: 'all', misfireGraceSeconds: null, maxJitterSeconds: 0 },
            grid,
            maxFires: 0,
            now: T0,
            random: () => 0.5,
          });
          let note: { nextFireAt: EpochMs; bucket: number } | null = planFirst.successor && {
            nextFireAt: next,
            bucket: planFirst.successor.bucket,
          };
          let cursor = bucketOf(grid, T0) - 1;
          let now = T0;
          for (const gap of gaps) {
            if (note === null) return;
            // A query some time before the next tick: the unread note must be among the buckets searched.
            const queryAt = now + querySecond * SECOND;
            const search = liveNoteBuckets(scheduleGrid(grid, scheduleId), source, {
              cursor,
              now: queryAt,
              chainFrom,
              writtenAfter: T0 - MINUTE,
            });
            if (!search.truncated) expect(search.buckets).toContain(note.bucket);
            if (firstOpenBucket(grid, queryAt) - cursor <= MAX_LATE_NOTE_BUCKETS) {
              expect(search.truncated).toBe(false);
            }
            // The next tick, `gap` minutes of skipped ticks later, reads every bucket started by then.
            now += (1 + gap) * MINUTE;
            const readThrough = bucketOf(grid, now);
            while (note !== null && note.bucket <= readThrough) {
              const plan = planNoteChunk({
                scheduleId,
                source,
                nextFireAt: note.nextFireAt,
                policies: { coalesce: 'all', misfireGraceSeconds: null, maxJitterSeconds: 0 },
                grid,
                maxFires: 100_000,
                now,
                random: () => 0.5,
              });
              note = plan.successor;
            }
            cursor = readThrough;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds the bucket of the earliest unread note when a second reader overlaps a tick and leaves a second chain', () => {
    const policies = { coalesce: 'all' as const, misfireGraceSeconds: null, maxJitterSeconds: 0 };
    fc.assert(
      fc.property(
        triggerArb,
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 4 }),
            lateSeconds: fc.option(fc.integer({ min: 1, max: 58 })),
          }),
          {
            minLength: 20,
            maxLength: 20,
          },
        ),
        scheduleIdArb,
        (spec, ticks, scheduleId) => {
          const source = compileTrigger(spec);
          const chainFrom = source.next(T0);
          if (chainFrom === undefined) return;
          let next: EpochMs | undefined = chainFrom;
          while (next !== undefined && next <= T0 + LOOKAHEAD) next = source.next(next + 1);
          if (next === undefined) return;
          const plan = (nextFireAt: EpochMs, now: EpochMs, maxFires = 100_000) =>
            planNoteChunk({
              scheduleId,
              source,
              nextFireAt,
              policies,
              grid,
              maxFires,
              now,
              random: () => 0.5,
            });
          const first = plan(next, T0, 0).successor;
          if (!first) return;
          let notes = [{ nextFireAt: next, bucket: first.bucket }];
          let cursor = bucketOf(grid, T0) - 1;
          let now = T0;
          for (const { gap, lateSeconds } of ticks) {
            now += (1 + gap) * MINUTE;
            const readThrough = bucketOf(grid, now);
            const read = notes.filter((note) => note.bucket > cursor && note.bucket <= readThrough);
            const written = read.flatMap((note) => plan(note.nextFireAt, now).successor ?? []);
            // A second reader of the same bucket, later, before the cursor moves: its successors too.
            const second = lateSeconds === null ? now : now + lateSeconds * SECOND;
            if (lateSeconds !== null)
              written.push(...read.flatMap((note) => plan(note.nextFireAt, second).successor ?? []));
            // Identical successors (the readers' plans agreed) are one note, as a reader reads them.
            const kept = [...notes.filter((note) => note.bucket > readThrough), ...written];
            notes = [...new Map(kept.map((note) => [`${note.nextFireAt}:${note.bucket}`, note])).values()];
            cursor = readThrough;
            // Queried once both readers wrote, before the next tick.
            const queryAt = Math.max(second, now) + SECOND;
            const earliest = notes.reduce<(typeof notes)[number] | undefined>(
              (found, note) => (found === undefined || note.nextFireAt < found.nextFireAt ? note : found),
              undefined,
            );
            if (!earliest) return;
            const search = liveNoteBuckets(scheduleGrid(grid, scheduleId), source, {
              cursor,
              now: queryAt,
              chainFrom,
              writtenAfter: T0 - MINUTE,
            });
            expect(search.truncated).toBe(false);
            expect(search.buckets).toContain(earliest.bucket);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
