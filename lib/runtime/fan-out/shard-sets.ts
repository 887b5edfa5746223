/**
 * Splits the shards a tick leased into at most `dispatchers` sets of nearly equal size (round robin, so
 * neighbouring shards go to different dispatchers); no set is empty.
 */
export function shardSets(shards: readonly number[], dispatchers: number): number[][] {
  const count = Math.max(0, Math.min(Math.floor(dispatchers), shards.length));
  const sets: number[][] = Array.from({ length: count }, () => []);
  shards.forEach((shard, index) => {
    sets[index % count]?.push(shard);
  });
  return sets;
}
