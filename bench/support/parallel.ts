/** Calls `work(0..count-1)` with at most `concurrency` calls in flight. */
export async function inParallel(
  count: number,
  concurrency: number,
  work: (n: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
