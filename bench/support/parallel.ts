import { mapWithConcurrency } from '../../lib/core/concurrency';

export { sleep } from '../../lib/core/clock';

/** Calls `work(0..count-1)` with at most `concurrency` calls in flight. */
export async function inParallel(
  count: number,
  concurrency: number,
  work: (n: number) => Promise<unknown>,
): Promise<void> {
  await mapWithConcurrency(
    Array.from({ length: count }, (_, n) => n),
    concurrency,
    work,
  );
}
