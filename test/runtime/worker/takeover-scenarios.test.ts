import { describe, expect, it } from 'vitest';
import {
  olderCopyTakesOverAFailedCheck,
  RESUMED_COPY_VARIANTS,
  RUNS_AFTER_RECLAIM,
  reapedAfterFailedCheck,
  reclaimedAfterSecondUpdate,
  resumedCopyMeetsAFailedCheck,
  staleCopyAfterTwoUpdates,
  staleReclaimTakenOverByNewerCopy,
  takeoverCopyMeetsACancellation,
  takeoverWaitsForItsStart,
  updateTimedBeforeCheckLandsAfterIt,
} from './takeover-scenarios';

describe('fires taken over after their schedule changed (the memory store)', () => {
  it("never runs the payload of an update that returned before a reclaim's check: the takeover of a run whose check failed decides the fire afresh", async () => {
    const { runs, job } = await reclaimedAfterSecondUpdate();

    expect(runs).toEqual(RUNS_AFTER_RECLAIM);
    expect(job).toMatchObject({ status: 'success' });
  });

  it('checks a takeover of a run whose check failed though it waited for its start: a fire of a removed schedule never runs', async () => {
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

  it("never runs a stale copy's reclaimed payload when a newer copy takes the run over after one more change: the fire runs once, as the current definition", async () => {
    const { runs, job } = await staleReclaimTakenOverByNewerCopy();

    expect(runs).toEqual(['2:v4']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it('retries a run whose check passed as stored when an update timed before the check lands after it: never a second definition', async () => {
    const { runs, job } = await updateTimedBeforeCheckLandsAfterIt();

    expect(runs).toEqual(['2:v1']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("runs a stale copy's fire once, as the current definition, when its worker vanished after its check failed, two updates later", async () => {
    const { runs, job } = await staleCopyAfterTwoUpdates();

    expect(runs).toEqual(['2:v3']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("checks the reaper's next attempt of a slot holder whose check failed: the fire runs once, as the current definition", async () => {
    const { runs, job } = await reapedAfterFailedCheck();

    expect(runs).toEqual(['2:v2']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it.each(RESUMED_COPY_VARIANTS)(
    "runs a fire once as the resume's copy when a stale copy's check failed and its worker vanished: the resume's copy %s",
    async (_, variant) => {
      const { runs, job } = await resumedCopyMeetsAFailedCheck({ ...variant });

      expect(runs).toEqual(['2:v1']);
      expect(job).toMatchObject({ status: 'success' });
    },
  );

  it("starts a fire as the run's revision when an older copy takes over a run whose check failed: the replacement it needs is sent", async () => {
    const { runs, job } = await olderCopyTakesOverAFailedCheck();

    expect(runs).toEqual(['2:v2']);
    expect(job).toMatchObject({ status: 'success' });
  });
});
