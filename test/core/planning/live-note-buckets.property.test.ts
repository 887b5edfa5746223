import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { liveNoteBuckets, MAX_LATE_NOTE_BUCKETS } from '../../../lib/core/planning/live-note-buckets';
import {
  bucketOf,
  DEFAULT_NOTE_GRID,
  firstOpenBucket,
  planNoteChunk,
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
        (spec, gaps, querySecond) => {
          const source = compileTrigger(spec);
          // The conversion at T0: its advance sent the fires inside the lookahead, and noted the next.
          const chainFrom = source.next(T0);
          if (chainFrom === undefined) return;
          let next: EpochMs | undefined = chainFrom;
          while (next !== undefined && next <= T0 + LOOKAHEAD) next = source.next(next + 1);
          if (next === undefined) return;
          const planFirst = planNoteChunk({
            scheduleId: 's',
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
            const search = liveNoteBuckets(grid, source, {
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
                scheduleId: 's',
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
});
