import { describe, expect, it } from 'vitest';
import { shardSets } from '../../../lib/runtime/fan-out/shard-sets';

describe('shardSets', () => {
  it('hands every shard to exactly one dispatcher, in sets whose sizes differ by at most one', () => {
    const shards = Array.from({ length: 16 }, (_, n) => n);

    const sets = shardSets(shards, 5);

    expect(sets).toHaveLength(5);
    expect(sets.flat().sort((a, b) => a - b)).toEqual(shards);
    const sizes = sets.map((set) => set.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('starts no more dispatchers than there are shards, and none without shards', () => {
    expect(shardSets([3, 7], 4)).toEqual([[3], [7]]);
    expect(shardSets([], 4)).toEqual([]);
    expect(shardSets([1, 2, 3], 0)).toEqual([]);
  });

  it('spreads neighbouring shards over different dispatchers', () => {
    expect(shardSets([0, 1, 2, 3, 4, 5], 3)).toEqual([
      [0, 3],
      [1, 4],
      [2, 5],
    ]);
  });
});
