import { describe, expect, it } from 'vitest';
import { itemSizeBytes, writeUnitsForSize } from '../../bench/support/item-size';

describe('itemSizeBytes', () => {
  it('counts attribute names and string values in UTF-8 bytes', () => {
    expect(itemSizeBytes({ pk: 'abc' })).toBe(2 + 3);
    expect(itemSizeBytes({ é: 'ü' })).toBe(2 + 2);
  });

  it('counts a number by its significant digits, about one byte per two, plus one', () => {
    expect(itemSizeBytes({ n: 7 })).toBe(1 + 2);
    expect(itemSizeBytes({ n: 1_795_470_042_557 })).toBe(1 + 1 + 7);
    expect(itemSizeBytes({ n: 1000 })).toBe(1 + 2);
    expect(itemSizeBytes({ n: -0.125 })).toBe(1 + 3);
  });

  it('counts booleans and null as one byte, binary by its length', () => {
    expect(itemSizeBytes({ a: true, b: null, c: new Uint8Array(10) })).toBe(2 + 2 + 11);
  });

  it('adds three bytes per list or map and one per element, with a map element its name', () => {
    expect(itemSizeBytes({ l: ['ab', 'c'] })).toBe(1 + 3 + (1 + 2) + (1 + 1));
    expect(itemSizeBytes({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
  });

  it('counts a set as the sum of its members', () => {
    expect(itemSizeBytes({ s: new Set(['ab', 'cd']) })).toBe(1 + 4);
  });

  it('ignores undefined attributes, as the document client drops them', () => {
    expect(itemSizeBytes({ pk: 'a', gone: undefined })).toBe(3);
  });
});

describe('writeUnitsForSize', () => {
  it('bills each started KB, and at least one unit', () => {
    expect(writeUnitsForSize(0)).toBe(1);
    expect(writeUnitsForSize(1024)).toBe(1);
    expect(writeUnitsForSize(1025)).toBe(2);
    expect(writeUnitsForSize(3000)).toBe(3);
  });
});
