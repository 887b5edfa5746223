import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { COALESCE_POLICIES, type CoalescePolicy } from '../../../lib/core/model/schedule';
import {
  chunkStart,
  DEFAULT_NOTE_GRID,
  firstOpenBucket,
  naturalBucket,
  planNoteChunk,
  scheduleGrid,
} from '../../../lib/core/planning/note-chunks';
import { compileTrigger, type FireTimeSource } from '../../../lib/core/triggers';
import type { TriggerSpec } from '../../../lib/core/triggers/schema';

/**
 * ADR 0007 (proposed): one shard's due notes, read bucket by bucket behind a cursor by ticks a minute
 * apart that may skip, crash mid-bucket, or overlap (a second reader of the same bucket, up to a minute
 * later, before the cursor moves). Checked: every fire of the trigger is sent (coalesce `all`) and never
 * one that is not a fire; no note is written behind the cursor; without faults each fire is sent once,
 * 50 s ahead or more and at most 900 s ahead; once the faults stop, the schedule is back to one chain.
 */

const baseGrid = DEFAULT_NOTE_GRID;
/** Schedule ids: their chunks start at every phase of the grid (`scheduleGrid`). */
const scheduleIdArb = fc.integer({ min: 0, max: 10_000 }).map((n) => `s${n}`);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const TICK_PERIOD = MINUTE;
/** How long into its period a tick may still be reading (its budget). */
const BUDGET = 40 * SECOND;
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
    fc.constantFrom('*/7 * * * * *', '0 * * * * *', '30 */5 * * * *', '0 0 * * * *').map((expression) => ({
      type: 'cron',
      expression,
    })),
    fc.array(fc.integer({ min: 0, max: 3 * 3_600 }), { minLength: 1, maxLength: 6 }).map((offsets) => ({
      type: 'or',
      triggers: offsets.map((s) => ({ type: 'date', run_at: iso(T0 + s * SECOND) })),
    })),
  )
  .map((spec) => spec as unknown as TriggerSpec);

/** What happens to one tick: skipped, crashing after some notes of a bucket, or overlapped by another reader. */
const tickFaultArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.constant({ kind: 'skip' as const }),
  fc.integer({ min: 0, max: 3 }).map((after) => ({ kind: 'crash' as const, after })),
  fc.integer({ min: 0, max: 60 }).map((late) => ({ kind: 'overlap' as const, lateMs: late * SECOND })),
);

interface Note {
  nextFireAt: EpochMs;
}

interface Run {
  sends: Map<EpochMs, { count: number; firstAt: EpochMs }>;
  maxDelayMs: number;
  writtenBehindCursor: number;
  liveChunks: Set<EpochMs>;
}

/** Runs ticks from T0 for `ticks` minutes over one schedule, the faults applying to the first `faultyTicks`. */
function simulate(
  scheduleId: string,
  source: FireTimeSource,
  coalesce: CoalescePolicy,
  faults: { kind: string; after?: number; lateMs?: number }[],
  ticks: number,
  maxFires = 100_000,
): Run {
  const grid = scheduleGrid(baseGrid, scheduleId);
  const notes = new Map<number, Note[]>();
  let cursor = firstOpenBucket(grid, T0 - TICK_PERIOD) - 1;
  const run: Run = { sends: new Map(), maxDelayMs: 0, writtenBehindCursor: 0, liveChunks: new Set() };
  const place = (nextFireAt: EpochMs, bucket: number) => {
    if (bucket <= cursor) run.writtenBehindCursor += 1;
    notes.set(bucket, [...(notes.get(bucket) ?? []), { nextFireAt }]);
  };
  const first = source.next(T0);
  if (first !== undefined)
    place(first, Math.max(naturalBucket(grid, source, first), firstOpenBucket(grid, T0)));

  /** Reads one bucket at `now`; stops after `limit` notes (a crash). Returns whether it read them all. */
  const readBucket = (bucket: number, now: EpochMs, limit: number) => {
    const earliestByChunk = new Map<EpochMs, EpochMs>();
    for (const note of notes.get(bucket) ?? []) {
      const chunk = chunkStart(grid, note.nextFireAt);
      earliestByChunk.set(chunk, Math.min(earliestByChunk.get(chunk) ?? note.nextFireAt, note.nextFireAt));
    }
    let read = 0;
    for (const nextFireAt of earliestByChunk.values()) {
      if (read++ >= limit) return false;
      const plan = planNoteChunk({
        scheduleId,
        source,
        nextFireAt,
        policies: { coalesce, misfireGraceSeconds: null, maxJitterSeconds: 0 },
        grid: baseGrid,
        maxFires,
        now,
        random: () => 0.5,
      });
      for (const fire of plan.fires) {
        const sent = run.sends.get(fire.fireTime);
        run.sends.set(fire.fireTime, { count: (sent?.count ?? 0) + 1, firstAt: sent?.firstAt ?? now });
        run.maxDelayMs = Math.max(run.maxDelayMs, fire.fireTime - now);
      }
      if (plan.successor) place(plan.successor.nextFireAt, plan.successor.bucket);
    }
    return true;
  };

  for (let index = 0; index < ticks; index++) {
    const fault = faults[index] ?? { kind: 'none' };
    if (fault.kind === 'skip') continue;
    let now = T0 + index * TICK_PERIOD;
    const until = Math.floor(now / baseGrid.bucketMs);
    for (let bucket = cursor + 1; bucket <= until; bucket++) {
      if (fault.kind === 'overlap') readBucket(bucket, now + (fault.lateMs ?? 0), Number.POSITIVE_INFINITY);
      if (!readBucket(bucket, now, fault.kind === 'crash' ? (fault.after ?? 0) : Number.POSITIVE_INFINITY))
        break;
      cursor = bucket;
      // The tick's reads take time: never beyond its budget
      now = Math.min(now + 200, T0 + index * TICK_PERIOD + BUDGET);
    }
  }
  for (const [bucket, list] of notes) {
    if (bucket > cursor) for (const note of list) run.liveChunks.add(chunkStart(grid, note.nextFireAt));
  }
  return run;
}

/** The fire times of `source` in `[from, until]`. */
function firesBetween(source: FireTimeSource, from: EpochMs, until: EpochMs): EpochMs[] {
  const fires: EpochMs[] = [];
  for (let fire = source.next(from); fire !== undefined && fire <= until; fire = source.next(fire + 1)) {
    fires.push(fire);
  }
  return fires;
}

const TICKS = 150;
/** Faults stop after this many ticks; the rest of the run shows chains meeting again. */
const FAULTY_TICKS = 90;

describe('due notes on a fixed chunk grid (ADR 0007, proposed)', () => {
  it('lose no fire, invent none, never write behind the cursor, and meet again as one chain once faults stop, whatever the cap on fires per plan', () => {
    fc.assert(
      fc.property(
        triggerArb,
        fc.constantFrom<CoalescePolicy>(...COALESCE_POLICIES),
        fc.array(tickFaultArb, { minLength: FAULTY_TICKS, maxLength: FAULTY_TICKS }),
        fc.constantFrom(200, 100_000),
        scheduleIdArb,
        (spec, coalesce, faults, maxFires, scheduleId) => {
          const source = compileTrigger(spec);
          const run = simulate(scheduleId, source, coalesce, faults, TICKS, maxFires);
          // Sent fires are fires of the trigger; none is sent more than 900 s ahead (the SQS delay)
          for (const fireTime of run.sends.keys()) expect(source.next(fireTime)).toBe(fireTime);
          expect(run.maxDelayMs).toBeLessThanOrEqual(900 * SECOND);
          expect(run.writtenBehindCursor).toBe(0);
          // With every missed fire kept, nothing is lost: each fire due before the last ticks was sent
          const due = firesBetween(source, T0, T0 + (TICKS - 10) * TICK_PERIOD);
          if (coalesce === 'all') expect(due.filter((fire) => !run.sends.has(fire))).toEqual([]);
          // Sixty fault-free minutes later, the schedule has one live note left (or none: it ended)
          expect(run.liveChunks.size).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('without faults, send each fire once, at least 50 s ahead (the grid: 150 s less a period and a budget)', () => {
    fc.assert(
      fc.property(triggerArb, scheduleIdArb, (spec, scheduleId) => {
        const source = compileTrigger(spec);
        const run = simulate(scheduleId, source, 'latest', [], TICKS);
        const due = firesBetween(source, T0 + 5 * MINUTE, T0 + (TICKS - 10) * TICK_PERIOD);
        for (const fire of due) {
          const sent = run.sends.get(fire);
          expect(sent?.count, `fire ${iso(fire)}`).toBe(1);
          expect(fire - (sent?.firstAt ?? fire), `lead of ${iso(fire)}`).toBeGreaterThanOrEqual(50 * SECOND);
        }
      }),
      { numRuns: 150 },
    );
  });
});
