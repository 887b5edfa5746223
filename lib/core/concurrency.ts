/**
 * Maps `items` with at most `limit` calls of `fn` in flight; results keep the order of `items`. After a
 * call fails no further call starts, and the returned promise rejects with that failure once the calls
 * in flight have settled, so nothing of it still runs when it settles.
 *
 * @example
 * const summaries = await mapWithConcurrency(schedules, 8, (schedule) => release(schedule));
 */
export async function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  limit: number,
  fn: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a whole number of at least 1, got ${limit}`);
  }
  const results = new Array<Result>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as Item, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
