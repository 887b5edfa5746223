import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTION_NAMES,
  checkFuzzedRequests,
  expectSoundAnswer,
  finishSeededJob,
  fuzzedRequest,
  seedThroughApi,
} from './support/fuzz';
import { createHarness } from './support/harness';

/** A harness holding schedules `report` and `report-2` (every minute), queued jobs `j0`, `j1` and a finished job `done`. */
async function seededHarness() {
  const h = createHarness();
  const cursors = await seedThroughApi(h.admin);
  await finishSeededJob(h.store, h.clock.now());
  h.writes.length = 0;
  h.queue.messages.length = 0;
  return { h, cursors };
}

describe('the admin API never throws', () => {
  it('answers any JSON value with a well-formed response', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.anything()), async (input) => {
        const h = createHarness();
        const response = await h.admin(input);
        expectSoundAnswer({}, response);
        expect(response.ok).toBe(false);
        expect(h.writes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('answers fuzzed requests of every action without an internal error, writing nothing when rejecting input', async () => {
    const succeeded = new Set<unknown>();
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzedRequest, { minLength: 1, maxLength: 4 }), async (requests) => {
        const { h, cursors } = await seededHarness();
        await checkFuzzedRequests({ ...h, messages: h.queue.messages, cursors }, requests, succeeded);
      }),
      { numRuns: 400 },
    );
    // The fuzzer must reach past validation into every action, or it proves little.
    expect([...succeeded].sort()).toEqual([...ACTION_NAMES].sort());
  }, 120_000);
});
