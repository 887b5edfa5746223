import { beforeEach, expect, it } from 'vitest';
import { shardOf } from '../../lib/adapters/dynamodb/table-design';
import { type DueNoteEntry, encodeNoteEntry } from '../../lib/core/model/due-note';
import { bucketOf, bucketStart, DEFAULT_NOTE_GRID } from '../../lib/core/planning/note-chunks';
import type { DueNote, DueNotesPage, ReadDueNotesInput } from '../../lib/core/ports/due-notes';
import { DAY, failure, MINUTE, range, type Store, type StoreFixture, T0 } from './store-fixtures';

const grid = DEFAULT_NOTE_GRID;
/** The bucket holding T0: a writer at T0 places notes from B0 + 2 on. */
const B0 = bucketOf(grid, T0);
const startOf = (bucket: number) => bucketStart(grid, bucket);

function entry(scheduleId: string, overrides: Partial<DueNoteEntry> = {}): DueNoteEntry {
  return {
    scheduleId,
    chain: 'c1',
    nextFireAt: T0 + 5 * MINUTE,
    runs: 3,
    lastFireAt: T0 + 4 * MINUTE,
    ...overrides,
  };
}

/** Due notes, their cursors and the live-note lookup (ADR 0007, 0008). */
export function dueNoteContract(fixture: () => StoreFixture): void {
  let store: Store;
  let writers = 0;
  beforeEach(() => {
    store = fixture().store;
  });

  const write = (notes: DueNote[], now = T0) =>
    store.writeDueNotes({ writer: `tick-${writers++}`, notes, now });
  const shardOfId = (id: string) => shardOf(id, store.dueShards);
  /** `count` schedule ids (`<prefix><n>`) of due shard `shard`. */
  const idsInShard = (shard: number, count: number, prefix = 's-') => {
    const ids: string[] = [];
    for (let n = 0; ids.length < count; n++)
      if (shardOfId(`${prefix}${n}`) === shard) ids.push(`${prefix}${n}`);
    return ids;
  };
  const read = (input: Partial<ReadDueNotesInput> & Pick<ReadDueNotesInput, 'now'>) =>
    store.readDueNotes({ shard: 0, afterBucket: B0, limit: 100, ...input });
  const noteKey = (note: DueNote) => `${note.bucket}:${note.entry.scheduleId}:${note.entry.nextFireAt}`;

  it('writes notes and reads them back with every field, by bucket, in their shard only', async () => {
    const [a, b, c] = idsInShard(0, 3);
    const other = idsInShard(1, 1)[0] as string;
    const notes: DueNote[] = [
      { bucket: B0 + 3, entry: entry(a as string, { chain: 'z9', runs: 0, lastFireAt: null }) },
      {
        bucket: B0 + 2,
        entry: entry(b as string, { nextFireAt: T0 + 3 * MINUTE, chain: 'abcdefghij012345' }),
      },
      { bucket: B0 + 2, entry: entry(c as string) },
      { bucket: B0 + 2, entry: entry(other) },
    ];

    await write(notes);
    const page = await read({ now: startOf(B0 + 3) });

    expect(page).toEqual({
      notes: [notes[1], notes[2], notes[0]],
      corrupt: [],
      completeThrough: B0 + 3,
    });
    expect((await read({ shard: 1, now: startOf(B0 + 3) })).notes).toEqual([notes[3]]);
  });

  it('reads no bucket before it starts, nor one at or before the cursor', async () => {
    const [a, b, c] = idsInShard(0, 3) as [string, string, string];
    await write([
      { bucket: B0 + 2, entry: entry(a) },
      { bucket: B0 + 3, entry: entry(b) },
      { bucket: B0 + 4, entry: entry(c) },
    ]);
    const ids = (page: DueNotesPage) => page.notes.map((note) => note.entry.scheduleId);

    const justBefore = await read({ now: startOf(B0 + 3) - 1 });
    const atItsStart = await read({ now: startOf(B0 + 3) });
    const behindTheCursor = await read({ afterBucket: B0 + 2, now: startOf(B0 + 4) });
    const nothingStarted = await read({ afterBucket: B0 + 4, now: startOf(B0 + 5) - 1 });

    expect([ids(justBefore), justBefore.completeThrough, justBefore.next]).toEqual([[a], B0 + 2, undefined]);
    expect(ids(atItsStart)).toEqual([a, b]);
    expect(ids(behindTheCursor)).toEqual([b, c]);
    expect(nothingStarted).toEqual({ notes: [], corrupt: [], completeThrough: B0 + 4 });
  });

  it('reads many notes in items near their size cap oldest bucket first, page by page, each once', async () => {
    const longPrefix = `${'x'.repeat(190)}-`;
    const ids = idsInShard(0, 1500, longPrefix);
    const notes = ids.map((id, n) => ({
      bucket: B0 + 2 + (n % 3),
      entry: entry(id, { nextFireAt: T0 + 5 * MINUTE + n }),
    }));
    // Three writers, each with notes of every bucket, in an order other than the buckets'.
    await Promise.all(
      range(3).map((w) => write(notes.filter((_, n) => Math.floor(n / 500) === w).reverse())),
    );

    const pages: DueNotesPage[] = [];
    let from: ReadDueNotesInput['from'];
    do {
      const page = await read({ now: startOf(B0 + 4), limit: 2, ...(from && { from }) });
      pages.push(page);
      from = page.next;
    } while (from && pages.length < 100);

    const returned = pages.flatMap((page) => page.notes);
    expect(pages.length).toBeGreaterThan(3);
    expect(returned.map(noteKey).sort()).toEqual(notes.map(noteKey).sort());
    expect(returned.map((note) => note.bucket)).toEqual(returned.map((note) => note.bucket).sort());
    let seen = 0;
    for (const page of pages) {
      seen += page.notes.length;
      const upToCompleted = notes.filter((note) => note.bucket <= page.completeThrough).length;
      expect(returned.slice(0, seen).filter((note) => note.bucket <= page.completeThrough)).toHaveLength(
        upToCompleted,
      );
    }
    expect(pages.at(-1)?.completeThrough).toBe(B0 + 4);
  });

  it('moves a cursor only forward: a mover behind it fails, also when two race', async () => {
    const before = await store.readNoteCursor(2);
    const first = await store.moveNoteCursor(2, B0 + 10);
    const backwards = await store.moveNoteCursor(2, B0 + 8);
    const same = await store.moveNoteCursor(2, B0 + 10);
    const [ahead, behind] = await Promise.all([
      store.moveNoteCursor(2, B0 + 20),
      store.moveNoteCursor(2, B0 + 15),
    ]);
    const targets = range(8).map((n) => B0 + ((n * 5) % 8));
    const racing = await Promise.all(targets.map((target) => store.moveNoteCursor(3, target)));

    expect([before, first, backwards, same, ahead]).toEqual([undefined, true, false, true, true]);
    expect(await store.readNoteCursor(2)).toBe(B0 + 20);
    expect(behind === false || ahead).toBe(true);
    expect(await store.readNoteCursor(3)).toBe(B0 + 7);
    expect(racing[targets.indexOf(B0 + 7)]).toBe(true);
    expect(await store.readNoteCursor(1)).toBeUndefined();
  });

  it('creates a cursor only where there is none: an existing one stays where it stands', async () => {
    const created = await store.createNoteCursor(0, B0 + 5);
    const again = await store.createNoteCursor(0, B0 + 9);
    await store.moveNoteCursor(1, B0 + 12);
    const behind = await store.createNoteCursor(1, B0 + 3);
    const ahead = await store.createNoteCursor(1, B0 + 30);

    expect([created, again, behind, ahead]).toEqual([B0 + 5, B0 + 5, B0 + 12, B0 + 12]);
    expect(await store.readNoteCursor(0)).toBe(B0 + 5);
    expect(await store.readNoteCursor(1)).toBe(B0 + 12);
    // Notes of a schedule go where the note reads of this contract look for them
    expect(['s', 'a', 'b-2'].map((id) => store.noteShardOf(id))).toEqual(['s', 'a', 'b-2'].map(shardOfId));
  });

  it("removes the item a writer's single note went into, and nothing else", async () => {
    const [a, b] = idsInShard(0, 2) as [string, string];
    const first = { bucket: B0 + 2, entry: entry(a) };
    await store.writeDueNotes({ writer: 'admin.r1.c1.0', notes: [first], now: T0 });
    await write([{ bucket: B0 + 2, entry: entry(b) }]);

    await store.removeDueNote('admin.r1.c1.0', first);
    await store.removeDueNote('admin.r1.c1.0', first);

    expect((await read({ now: startOf(B0 + 2) })).notes.map((note) => note.entry.scheduleId)).toEqual([b]);
  });

  it('finds the live notes of schedules: the earliest next fire of their chain, each bucket read once', async () => {
    const [id, neighbour] = idsInShard(0, 2) as [string, string];
    const ours = entry(id, { chain: 'c2' });
    await write([
      { bucket: B0 + 2, entry: { ...ours, nextFireAt: T0 + 6 * MINUTE, runs: 9 } },
      { bucket: B0 + 2, entry: { ...ours, chain: 'c1', nextFireAt: T0 + MINUTE } },
      { bucket: B0 + 3, entry: { ...ours, nextFireAt: T0 + 4 * MINUTE, runs: 7 } },
      { bucket: B0 + 3, entry: { ...ours, scheduleId: neighbour, nextFireAt: T0 } },
    ]);
    await write([{ bucket: B0 + 3, entry: { ...ours, nextFireAt: T0 + 5 * MINUTE, runs: 8 } }]);
    const find = (buckets: number[], chain = 'c2') =>
      store.findLiveNotes({
        shard: 0,
        schedules: [
          { scheduleId: id, chain },
          { scheduleId: neighbour, chain: 'c2' },
        ],
        buckets,
      });

    const both = await find([B0 + 2, B0 + 3]);
    const firstOnly = await find([B0 + 2]);
    const otherChain = await find([B0 + 3], 'c3');
    const tooMany = await failure(find(range(13).map((n) => B0 + n)));

    expect(both).toEqual(
      new Map([
        [id, { bucket: B0 + 3, entry: { ...ours, nextFireAt: T0 + 4 * MINUTE, runs: 7 } }],
        [neighbour, { bucket: B0 + 3, entry: { ...ours, scheduleId: neighbour, nextFireAt: T0 } }],
      ]),
    );
    expect(firstOnly.get(id)).toEqual({
      bucket: B0 + 2,
      entry: { ...ours, nextFireAt: T0 + 6 * MINUTE, runs: 9 },
    });
    expect(otherChain.has(id)).toBe(false);
    expect(tooMany).toBeInstanceOf(RangeError);
  });

  it('skips and reports a corrupt entry or item, and reads the rest', async () => {
    const [id, other] = idsInShard(0, 2) as [string, string];
    const good = entry(id);
    await fixture().putRawNoteItem(0, B0 + 2, 'raw#00000', [
      'not an entry',
      encodeNoteEntry(good),
      42,
      encodeNoteEntry(entry(other)).replace(/^c1 /, 'C! '),
    ]);
    await fixture().putRawNoteItem(0, B0 + 2, 'raw#00001', 'no list');

    const page = await read({ now: startOf(B0 + 2) });
    const live = await store.findLiveNotes({ shard: 0, schedules: [good], buckets: [B0 + 2] });

    expect(page.notes).toEqual([{ bucket: B0 + 2, entry: good }]);
    expect(page.corrupt.map(({ item, reason }) => `${item} ${reason.split(':')[0]}`)).toEqual([
      'raw#00000 entry 0',
      'raw#00000 entry 2',
      'raw#00000 entry 3',
      'raw#00001 entries are not a list of at most 2048',
    ]);
    expect(page.completeThrough).toBe(B0 + 2);
    expect(live.get(id)).toEqual({ bucket: B0 + 2, entry: good });
  });

  it('refuses a note placed before its writer’s first open bucket, a writer used twice, and an entry no reader could take back', async () => {
    const [id] = idsInShard(0, 1) as [string];

    const tooEarly = await failure(write([{ bucket: B0 + 1, entry: entry(id) }]));
    await store.writeDueNotes({ writer: 'tick-x', notes: [{ bucket: B0 + 2, entry: entry(id) }], now: T0 });
    const reused = await failure(
      store.writeDueNotes({
        writer: 'tick-x',
        notes: [{ bucket: B0 + 2, entry: entry(id, { runs: 4 }) }],
        now: T0,
      }),
    );
    const badChain = await failure(write([{ bucket: B0 + 2, entry: entry(id, { chain: 'Not A Token' }) }]));

    expect(tooEarly).toBeInstanceOf(RangeError);
    expect(String(reused)).toMatch(/exists already/);
    expect(badChain).toBeInstanceOf(RangeError);
    expect((await read({ afterBucket: B0 - 1, now: startOf(B0 + 3) })).notes).toEqual([
      { bucket: B0 + 2, entry: entry(id) },
    ]);
  });

  it('keeps a note item until two weeks after its bucket ends', async () => {
    const [a, b] = idsInShard(0, 2) as [string, string];
    await write([
      { bucket: B0 + 2, entry: entry(a) },
      { bucket: B0 + 3, entry: entry(b) },
    ]);

    await fixture().expireRecords(startOf(B0 + 3) + 14 * DAY - 1);
    const beforeItsExpiry = await read({ now: startOf(B0 + 3) + 14 * DAY });
    await fixture().expireRecords(startOf(B0 + 3) + 14 * DAY);
    const after = await read({ now: startOf(B0 + 3) + 14 * DAY });

    expect(beforeItsExpiry.notes.map((note) => note.entry.scheduleId)).toEqual([a, b]);
    expect(after.notes.map((note) => note.entry.scheduleId)).toEqual([b]);
  });
}
