import { describe, expect, it } from 'vitest';
import {
  RUNS_AFTER_RECLAIM,
  reclaimedAfterSecondUpdate,
  staleReclaimTakenOverByNewerCopy,
  takeoverCopyMeetsACancellation,
  takeoverWaitsForItsStart,
} from './takeover-scenarios';

describe('fires taken over after their schedule changed (the memory store)', () => {
  it('never runs the payload of an update that returned before a reclaim: the takeover orders the changes against the reclaim', async () => {
    const { runs, job } = await reclaimedAfterSecondUpdate();

    expect(runs).toEqual(RUNS_AFTER_RECLAIM);
    expect(job).toMatchObject({ status: 'success' });
  });

  it('checks a takeover that waited for its start as the takeover it is: a fire of a removed schedule never runs', async () => {
    const { runs, job } = await takeoverWaitsForItsStart();

    expect(runs).toEqual([]);
    expect(job).toMatchObject({ status: 'cancelled', result: { error: { type: 'ScheduleRemoved' } } });
  });

  it("leaves a cancellation made while a takeover's copy waited to the current definition, whose copy runs the fire once though it waited too", async () => {
    const { runs, job, woken, wokenAsV3 } = await takeoverCopyMeetsACancellation();

    expect(woken).toBeGreaterThan(0);
    expect(wokenAsV3).toBeGreaterThan(0);
    expect(runs).toEqual(['2:v3']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("never runs a stale copy's reclaimed payload when a newer copy takes the run over after one more change: its check saw the change before the reclaim", async () => {
    const { runs, job } = await staleReclaimTakenOverByNewerCopy();

    expect(runs).toEqual([]);
    expect(job).toMatchObject({ status: 'cancelled', result: { error: { type: 'ScheduleChanged' } } });
  });
});
