import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../lib/core/concurrency';

/** A call that settles when the test says so, and the calls started so far. */
function controlledCalls() {
  const started: { item: number; index: number; settle(value?: unknown): void; fail(error: Error): void }[] =
    [];
  let running = 0;
  let mostRunning = 0;
  const call = (item: number, index: number) =>
    new Promise<string>((resolve, reject) => {
      running += 1;
      mostRunning = Math.max(mostRunning, running);
      const done = () => {
        running -= 1;
      };
      started.push({
        item,
        index,
        settle: () => {
          done();
          resolve(`result ${item}`);
        },
        fail: (error) => {
          done();
          reject(error);
        },
      });
    });
  return { call, started, mostRunning: () => mostRunning };
}

/** Lets the promise callbacks queued so far run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('mapWithConcurrency', () => {
  it('keeps at most `limit` calls in flight and returns the results in the order of the items', async () => {
    // Prepare
    const { call, started, mostRunning } = controlledCalls();

    // Act: settle the calls in reverse order of starting, two at a time
    const mapping = mapWithConcurrency([10, 20, 30, 40, 50], 2, call);
    let done = false;
    void mapping.then(() => {
      done = true;
    });
    while (!done) {
      await settled();
      for (const entry of started.splice(0).reverse()) entry.settle();
    }

    // Assess
    expect(await mapping).toEqual(['result 10', 'result 20', 'result 30', 'result 40', 'result 50']);
    expect(mostRunning()).toBe(2);
  });

  it('passes each item its index', async () => {
    // Act
    const indexes = await mapWithConcurrency(['a', 'b', 'c'], 3, async (item, index) => `${item}${index}`);

    // Assess
    expect(indexes).toEqual(['a0', 'b1', 'c2']);
  });

  it('starts no further call after one failed, and rejects with that failure once the calls in flight settled', async () => {
    // Prepare
    const { call, started } = controlledCalls();
    let rejected: unknown;

    // Act
    const mapping = mapWithConcurrency([1, 2, 3, 4, 5], 2, call).catch((error: unknown) => {
      rejected = error;
    });
    await settled();
    const [first, second] = started;
    first?.fail(new Error('item 1 failed'));
    await settled();
    const rejectedWhileOneRan = rejected;
    second?.settle();
    await mapping;

    // Assess
    expect(started.map((entry) => entry.item)).toEqual([1, 2]);
    expect(rejectedWhileOneRan).toBeUndefined();
    expect(rejected).toEqual(new Error('item 1 failed'));
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s, naming what is allowed', async (limit) => {
    // Act
    const mapping = mapWithConcurrency([1], limit, async (item) => item);

    // Assess
    await expect(mapping).rejects.toThrow(
      `concurrency limit must be a whole number of at least 1, got ${limit}`,
    );
  });

  it('answers an empty list with an empty list', async () => {
    expect(await mapWithConcurrency([], 4, async () => 1)).toEqual([]);
  });
});
