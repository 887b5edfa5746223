import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DueNoteEntry,
  decodeNoteEntry,
  encodeNoteEntry,
  liveNoteOf,
  NOTE_ITEM_ENTRY_BYTES,
  packNoteEntries,
} from '../../../lib/core/model/due-note';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function entry(overrides: Partial<DueNoteEntry> = {}): DueNoteEntry {
  return {
    scheduleId: 'nightly-report',
    chain: 'k3x9a0b2',
    nextFireAt: T0 + 3_600_000,
    runs: 12,
    lastFireAt: T0,
    ...overrides,
  };
}

const idCharacter = fc.constantFrom(...'abcXYZ019._:-'.split(''));
const anEntry = fc.record({
  scheduleId: fc.string({ unit: idCharacter, minLength: 1, maxLength: 200 }),
  chain: fc.string({ unit: fc.constantFrom(...'0123456789abcxyz'.split('')), minLength: 1, maxLength: 16 }),
  nextFireAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  runs: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  lastFireAt: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { nil: null }),
});

describe('due note entries (ADR 0007)', () => {
  it('decodes every entry it encodes to the same entry', () => {
    fc.assert(
      fc.property(anEntry, (original) => {
        expect(decodeNoteEntry(encodeNoteEntry(original))).toEqual({ ok: true, entry: original });
      }),
    );
  });

  it('writes an entry in few bytes: an hourly schedule of a 14-character id in under 50', () => {
    const text = encodeNoteEntry(entry());

    expect(text).toBe(`k3x9a0b2 ${(T0 + 3_600_000).toString(36)} c ${T0.toString(36)} nightly-report`);
    expect(text.length).toBeLessThan(50);
  });

  it('refuses to encode an entry no reader could take back, naming the schedule and the field', () => {
    const refusals = [
      entry({ scheduleId: 'has space' }),
      entry({ scheduleId: '' }),
      entry({ scheduleId: 'x'.repeat(201) }),
      entry({ chain: '' }),
      entry({ chain: 'UPPER' }),
      entry({ chain: 'x'.repeat(17) }),
      entry({ runs: -1 }),
      entry({ nextFireAt: 1.5 }),
      entry({ nextFireAt: Number.MAX_SAFE_INTEGER + 1 }),
      entry({ lastFireAt: Number.NaN }),
    ].map((bad) => {
      try {
        return encodeNoteEntry(bad);
      } catch (error) {
        return error;
      }
    });

    for (const refusal of refusals) expect(refusal).toBeInstanceOf(RangeError);
    expect(String(refusals[3])).toMatch(/schedule 'nightly-report': the chain/);
  });

  it('reports why a text is not an entry, for anything stored', () => {
    const good = encodeNoteEntry(entry());
    const reasons = [
      42,
      null,
      '',
      good.replace(/^k3x9a0b2 /, ''),
      `${good} extra`,
      good.replace(/^k3x9a0b2 /, 'k3.0 '),
      good.replace(/^k3x9a0b2 /, 'K3 '),
      good.replace(/^k3x9a0b2 /, `${'a'.repeat(17)} `),
      good.replace(/ c /, ' 0c '),
      good.replace(/ c /, '  '),
      good.replace('nightly-report', 'nightly@report'),
      `k3 ${'z'.repeat(12)} 1 1 id`,
      `k3 1 ${'z'.repeat(12)} - id`,
      'x'.repeat(10_000),
    ].map((text) => decodeNoteEntry(text));

    for (const decoded of reasons) expect(decoded).toMatchObject({ ok: false, reason: expect.any(String) });
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const decoded = decodeNoteEntry(text);
        if (decoded.ok) expect(encodeNoteEntry(decoded.entry)).toBe(text);
      }),
    );
  });

  it('packs entries in order into items of at most the byte budget, an entry never split', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: idCharacter, minLength: 1, maxLength: 260 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 4_000 }),
        (texts, maxBytes) => {
          const items = packNoteEntries(texts, maxBytes);

          expect(items.flat()).toEqual(texts);
          for (const item of items) {
            const bytes = item.reduce((sum, text) => sum + text.length + 1, 0);
            expect(item.length === 1 || bytes <= maxBytes).toBe(true);
            expect(item.length).toBeGreaterThan(0);
          }
          for (const [index, item] of items.slice(0, -1).entries()) {
            const next = items[index + 1]?.[0] ?? '';
            const bytes = item.reduce((sum, text) => sum + text.length + 1, 0);
            expect(bytes + next.length + 1).toBeGreaterThan(maxBytes);
          }
        },
      ),
    );
    expect(NOTE_ITEM_ENTRY_BYTES).toBeLessThanOrEqual(25 * 1024);
  });

  it('takes the earliest next fire among the notes of one id, version and incarnation', () => {
    const ours = entry();
    const notes = [
      { bucket: 5, entry: { ...ours, nextFireAt: T0 + 9 } },
      { bucket: 6, entry: { ...ours, nextFireAt: T0 + 2 } },
      { bucket: 6, entry: { ...ours, nextFireAt: T0 + 4 } },
      { bucket: 4, entry: { ...ours, chain: 'older', nextFireAt: T0 } },
      { bucket: 4, entry: { ...ours, scheduleId: 'other', nextFireAt: T0 } },
    ];

    expect(liveNoteOf(notes, ours)).toBe(notes[1]);
    expect(liveNoteOf(notes, { ...ours, chain: 'newer' })).toBeUndefined();
    expect(liveNoteOf([], ours)).toBeUndefined();
  });
});
