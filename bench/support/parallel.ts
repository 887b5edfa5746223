import { mapWithConcurrency } from '../../lib/runtime/concurrency';

export { sleep } from '../../lib/runtime/concurrency';

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
