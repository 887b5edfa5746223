import { describe, expect, it } from 'vitest';
import {
  chunkStart,
  DEFAULT_NOTE_GRID,
  type NoteChunkInput,
  naturalBucket,
  planNoteChunk,
  scheduleGrid,
} from '../../../lib/core/planning/note-chunks';
import { listSource, periodicSource } from '../../support/fire-time-sources';

/** Schedule `s`'s grid: its chunks start at its phase past each multiple of 120 s. */
const grid = scheduleGrid(DEFAULT_NOTE_GRID, 's');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** A chunk boundary of schedule `s`. */
const G = Date.parse('2026-01-01T10:00:00Z') + grid.phaseMs;
const bucketOf = (instant: number) => Math.floor(instant / grid.bucketMs);

function plan(overrides: Partial<NoteChunkInput> & Pick<NoteChunkInput, 'source' | 'nextFireAt' | 'now'>) {
  return planNoteChunk({
    scheduleId: 's',
    policies: { coalesce: 'latest', misfireGraceSeconds: null, maxJitterSeconds: 0 },
    grid: DEFAULT_NOTE_GRID,
    maxFires: 1_000,
    random: () => 0.5,
    ...overrides,
  });
}
const seconds = (fires: { fireTime: number }[]) => fires.map((fire) => (fire.fireTime - G) / SECOND);

describe('planNoteChunk (ADR 0007, proposed)', () => {
  it('read on time, sends its chunk and leaves the first fire of the next chunk, to be read 150 s before that chunk', () => {
    const everyTenSeconds = periodicSource(G, 10 * SECOND);

    const read = plan({ source: everyTenSeconds, nextFireAt: G, now: G - 150 * SECOND });

    expect(seconds(read.fires)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]);
    expect(read.successor).toEqual({
      nextFireAt: G + 2 * MINUTE,
      bucket: bucketOf(G + 2 * MINUTE - 150 * SECOND),
    });
  });

  it('leaves the same successor whenever, on time, it is read: two readers of one note agree', () => {
    const source = periodicSource(G + 7 * SECOND, 7 * SECOND);
    const at = (now: number) => plan({ source, nextFireAt: G + 7 * SECOND, now });

    const early = at(G - 160 * SECOND);
    const late = at(G - 60 * SECOND);

    expect(early.successor).toEqual(late.successor);
    expect(seconds(early.fires)).toEqual(seconds(late.fires));
  });

  it('reads an isolated fire (the next one more than 900 s later) 840 s ahead, and sends it alone', () => {
    const hourly = periodicSource(G + 30 * SECOND, 60 * MINUTE);

    const read = plan({ source: hourly, nextFireAt: G + 30 * SECOND, now: G - 800 * SECOND });

    expect(seconds(read.fires)).toEqual([30]);
    expect(read.successor).toEqual({
      nextFireAt: G + 60 * MINUTE + 30 * SECOND,
      bucket: bucketOf(G + 60 * MINUTE + 30 * SECOND - 840 * SECOND),
    });
    expect(naturalBucket(grid, hourly, G + 30 * SECOND)).toBe(bucketOf(G + 30 * SECOND - 840 * SECOND));
  });

  it('read late, sends chunk after chunk until its successor can be read two buckets from now', () => {
    const everyMinute = periodicSource(G, MINUTE);

    // Read 20 s before the chunk: the next chunk's note (read 150 s before G + 2 min) would already be late
    const read = plan({ source: everyMinute, nextFireAt: G, now: G - 20 * SECOND });

    expect(seconds(read.fires)).toEqual([0, 60, 120, 180]);
    expect(read.successor?.nextFireAt).toBe(G + 4 * MINUTE);
    expect(read.successor?.bucket).toBeGreaterThanOrEqual(bucketOf(G - 20 * SECOND) + 2);
  });

  it('after an outage, sends the missed fires by the coalesce policy, then on to a chunk it can place', () => {
    const everyMinute = periodicSource(G, MINUTE);
    const now = G + 10 * MINUTE + 5 * SECOND;

    const latest = plan({ source: everyMinute, nextFireAt: G, now });
    const all = plan({
      source: everyMinute,
      nextFireAt: G,
      now,
      policies: { coalesce: 'all', misfireGraceSeconds: null, maxJitterSeconds: 0 },
    });

    expect(latest.coalesced).toBe(true);
    expect(seconds(latest.fires)[0]).toBe(600);
    expect(seconds(all.fires).slice(0, 11)).toEqual([0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600]);
    expect(latest.successor).toEqual(all.successor);
    expect(chunkStart(grid, latest.successor?.nextFireAt ?? 0)).toBe(latest.successor?.nextFireAt);
  });

  it('stops at the cap on fires per plan and leaves the first unsent fire, and leaves nothing when the trigger ends', () => {
    const everySecond = periodicSource(G, SECOND);
    const twoFires = listSource([G, G + 5 * SECOND]);

    const capped = plan({ source: everySecond, nextFireAt: G, now: G - 150 * SECOND, maxFires: 50 });
    const ended = plan({ source: twoFires, nextFireAt: G, now: G - 150 * SECOND });

    expect(capped.fires).toHaveLength(50);
    expect(capped.successor?.nextFireAt).toBe(G + 50 * SECOND);
    expect(seconds(ended.fires)).toEqual([0, 5]);
    expect(ended.successor).toBeNull();
  });

  it('places a successor that is still a missed fire (capped catch-up) two buckets ahead, never behind the reader', () => {
    const everySecond = periodicSource(G, SECOND);
    const now = G + 10 * MINUTE;

    const read = plan({
      source: everySecond,
      nextFireAt: G,
      now,
      maxFires: 10,
      policies: { coalesce: 'all', misfireGraceSeconds: null, maxJitterSeconds: 0 },
    });

    expect(seconds(read.fires)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(read.successor).toEqual({ nextFireAt: G + 10 * SECOND, bucket: bucketOf(now) + 2 });
  });

  it('places the chunks of each schedule at a phase of its own, so the notes of many schedules spread over every bucket of a chunk', () => {
    const ids = Array.from({ length: 1_200 }, (_, n) => `schedule-${n}`);
    const phases = ids.map((id) => scheduleGrid(DEFAULT_NOTE_GRID, id).phaseMs);
    const perPhase = new Map<number, number>();
    for (const phase of phases) perPhase.set(phase, (perPhase.get(phase) ?? 0) + 1);

    expect([...perPhase.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, n) => n * DEFAULT_NOTE_GRID.bucketMs),
    );
    for (const count of perPhase.values()) expect(count).toBeGreaterThan(60);
    // The same schedule keeps its phase: every chain of it meets at the same chunks
    expect(scheduleGrid(DEFAULT_NOTE_GRID, 'schedule-7')).toEqual(
      scheduleGrid(DEFAULT_NOTE_GRID, 'schedule-7'),
    );
  });

  it('reads the same fires of two schedules whose phases differ in different buckets', () => {
    const [a, b] = ['schedule-1', 'schedule-2', 'schedule-3', 'schedule-4']
      .map((id) => ({ id, grid: scheduleGrid(DEFAULT_NOTE_GRID, id) }))
      .filter(
        (entry, index, all) => all.findIndex((other) => other.grid.phaseMs === entry.grid.phaseMs) === index,
      );
    if (!a || !b) throw new Error('expected two phases among four ids');
    const everyFiveSeconds = periodicSource(G, 5 * SECOND);
    const fire = G + 10 * MINUTE;

    expect(naturalBucket(a.grid, everyFiveSeconds, fire)).not.toBe(
      naturalBucket(b.grid, everyFiveSeconds, fire),
    );
    for (const { grid: own } of [a, b]) {
      const start = chunkStart(own, fire);
      expect((start - own.phaseMs) % own.chunkMs).toBe(0);
      expect(fire - start).toBeGreaterThanOrEqual(0);
      expect(fire - start).toBeLessThan(own.chunkMs);
    }
  });
});
