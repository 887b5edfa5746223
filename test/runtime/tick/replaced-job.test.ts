import { describe, expect, it } from 'vitest';
import {
  delayedThenReplaced,
  parkedThenReplaced,
  REPLACEMENT_RUNS,
  waitingThenReplaced,
} from './replaced-job';

/** ADR 0001: a message sent for a job that `replace` overwrote since runs nothing (the memory store). */
describe('a job replaced after its message was sent (conflict_policy replace)', () => {
  it('runs the replacement of a parked job the tick had sent, at its run time, never the old definition', async () => {
    expect(await parkedThenReplaced()).toEqual(REPLACEMENT_RUNS.parked);
  });

  it('runs the replacement of a job sent with a delay, at its run time, never the old definition', async () => {
    expect(await delayedThenReplaced()).toEqual(REPLACEMENT_RUNS.delayed);
  });

  it('sends the replacement of a job waiting in its line whose own send failed: the entry is of the creation replaced, and the replacement runs', async () => {
    expect(await waitingThenReplaced()).toEqual(REPLACEMENT_RUNS.waiting);
  });
});
