import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import type { JsonValue } from '../../../lib/core/json';
import { revisionOf } from '../../../lib/core/model/schedule-revision';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { removeFinishedAfterLastFire } from '../../../lib/runtime/dispatch/finished-cleanup';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
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

let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('takeovers-after-changes');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});

afterAll(async () => {
  await table.drop();
});

const every10s = { type: 'interval', seconds: 10, start_at: new Date(T0).toISOString() } as const;

/**
 * The worker and the admin API on DynamoDB Local (manual clock), with a schedule `<id>` of task `beat`
 * firing every 10 s from T0 whose fires up to +15 s have run, and the message of its +20 s fire taken
 * out of the queue: a worker claims it and vanishes, and the message comes back after the run's lease.
 */
async function fireOfScheduleInFlight(id: string, trigger: Record<string, unknown> = every10s) {
  const runs: { jobId: string; attempt: number; payload: JsonValue }[] = [];
  const p = adminAndWorker(
    {
      beat: {
        handler: (payload: JsonValue, { jobId, attempt }: { jobId: string; attempt: number }) => {
          runs.push({ jobId, attempt, payload });
        },
      },
    },
    { jobStore: store, scheduleStore: store },
  );
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger, payload: { v: 1 } });
  await p.deliverDue(15);
  const jobId = `${id}@${T0 + 20 * SECOND}`;
  const index = p.queue.sent.findIndex((message) => message.job.id === jobId);
  const [message] = p.queue.sent.splice(index, 1);
  if (!message) throw new Error(`no message for ${jobId}`);
  return {
    ...p,
    jobId,
    message: message as JobMessage,
    /** `attempt:v<payload v>` of each run of the +20 s fire. */
    runs: () =>
      runs
        .filter((run) => run.jobId === jobId)
        .map((run) => `${run.attempt}:v${(run.payload as { v: number }).v}`),
    /** The message comes back after the run's lease ended and takes the run over; then the rest is delivered. */
    async takeOver() {
      p.clock.advance(60 * SECOND);
      await p.deliver(message);
      await p.deliverDue(200);
    },
  };
}

describe('worker on DynamoDB Local: a run taken over after its schedule changed', () => {
  it('never starts a fire claimed after pause_schedule returned, when the schedule is resumed before the takeover', async () => {
    // Prepare: pause returned; then the check (which sees the pause) and its claim; then the resume
    const fire = await fireOfScheduleInFlight('paused-then-resumed');
    fire.clock.set(T0 + 20 * SECOND);
    await fire.admin({ action: 'pause_schedule', id: 'paused-then-resumed' });
    fire.clock.advance(SECOND);
    await fire.claimAndVanish(fire.message);
    fire.clock.advance(SECOND);
    await fire.admin({ action: 'resume_schedule', id: 'paused-then-resumed' });

    // Act
    await fire.takeOver();

    // Assess: due before the resume, the fire is skipped, as if its worker had lived
    expect(fire.runs()).toEqual([]);
    const job = await store.getJob(fire.jobId, fire.clock.now());
    expect(job).toMatchObject({ status: 'cancelled', result: { error: { type: 'ScheduleChanged' } } });
  });

  it('runs a fire checked after update_schedule returned once, as the current definition, when it was updated again before the takeover', async () => {
    // Prepare: update to v2 returned; the check (failed) and claim of the fire sent as v1; update to v3
    const fire = await fireOfScheduleInFlight('updated-twice');
    await fire.admin({ action: 'update_schedule', id: 'updated-twice', payload: { v: 2 } });
    fire.clock.set(T0 + 20 * SECOND);
    await fire.claimAndVanish(fire.message);
    fire.clock.advance(SECOND);
    await fire.admin({ action: 'update_schedule', id: 'updated-twice', payload: { v: 3 } });

    // Act
    await fire.takeOver();

    // Assess: its check failed, so its handler never started: never v1, and v3 once
    expect(fire.runs()).toEqual(['2:v3']);
    const job = await store.getJob(fire.jobId, fire.clock.now());
    expect(job).toMatchObject({ status: 'success' });
  });

  it('runs a fire its takeover replaced once: a late copy of its message never runs it again', async () => {
    // Prepare: as above, the takeover cancels the fire and sends it as the current definition, which runs
    const fire = await fireOfScheduleInFlight('taken-over-then-copied');
    await fire.admin({ action: 'update_schedule', id: 'taken-over-then-copied', payload: { v: 2 } });
    fire.clock.set(T0 + 20 * SECOND);
    await fire.claimAndVanish(fire.message);
    fire.clock.advance(SECOND);
    await fire.admin({ action: 'update_schedule', id: 'taken-over-then-copied', payload: { v: 3 } });
    await fire.takeOver();

    // Act: a copy of the fire's first message comes late (a queue may deliver one long after)
    await fire.deliver(fire.message);
    await fire.deliverDue(200);

    // Assess
    expect(fire.runs()).toEqual(['2:v3']);
    const job = await store.getJob(fire.jobId, fire.clock.now());
    expect(job).toMatchObject({ status: 'success', attempt: 2 });
  });

  it('retries a run checked before pause_schedule returned as the same job: its handler may have started', async () => {
    // Prepare: the check (passed) and claim (its handler may have started), then the pause; it stays paused
    const fire = await fireOfScheduleInFlight('claimed-then-paused');
    fire.clock.set(T0 + 20 * SECOND);
    await fire.claimAndVanish(fire.message);
    fire.clock.advance(SECOND);
    await fire.admin({ action: 'pause_schedule', id: 'claimed-then-paused' });

    // Act
    await fire.takeOver();

    // Assess: a retry of the run that started before the pause, never a second attempt 1
    expect(fire.runs()).toEqual(['2:v1']);
  });

  it('retries a run of the current definition taken over by an older message of the fire, and never starts its attempt again', async () => {
    // Prepare: the fire is sent as v1, then (after the update) as v2; the v2 delivery claims it and vanishes
    const fire = await fireOfScheduleInFlight('taken-over-by-stale');
    await fire.admin({ action: 'update_schedule', id: 'taken-over-by-stale', payload: { v: 2 } });
    const updated = await store.getSchedule('taken-over-by-stale');
    if (!updated) throw new Error('no schedule');
    const current: JobMessage = {
      ...fire.message,
      job: { ...fire.message.job, payload: updated.payload },
      revision: revisionOf(updated),
    };
    fire.queue.sent.push(current);
    fire.clock.set(T0 + 20 * SECOND);
    await fire.claimAndVanish(current);

    // Act: the v1 message takes the run over; the v2 message comes back after it
    await fire.takeOver();

    // Assess: a retry of the run that may have started, with its payload; never a second attempt 1
    expect(fire.runs()).toEqual(['2:v2']);
  });

  it('retries a run taken over by an older message after its schedule finished and was removed, never starting its attempt again', async () => {
    // Prepare: the +20 s fire is sent as v1, then as v2; the v2 delivery claims it and vanishes; the
    // schedule's last fire (+30 s) runs, and its closing note removes the finished schedule
    const id = 'removed-before-takeover';
    const fire = await fireOfScheduleInFlight(id, {
      ...every10s,
      end_at: new Date(T0 + 30 * SECOND).toISOString(),
    });
    await fire.admin({ action: 'update_schedule', id, payload: { v: 2 } });
    const updated = await store.getSchedule(id);
    if (!updated) throw new Error('no schedule');
    const current: JobMessage = {
      ...fire.message,
      job: { ...fire.message.job, payload: updated.payload },
      revision: revisionOf(updated),
    };
    fire.clock.set(T0 + 20 * SECOND);
    await fire.claimAndVanish(current);
    await fire.deliverDue(35);
    await removeFinishedAfterLastFire(fire.deps, id, null);
    expect(await store.getSchedule(id)).toBeUndefined();

    // Act: the v1 message takes the run over; the v2 message comes back after it
    fire.queue.sent.push(current);
    await fire.takeOver();

    // Assess: the run that may have started is retried, never started again as attempt 1
    expect(fire.runs()).toEqual(['2:v2']);
  });

  it("never runs the payload of an update that returned before a reclaim's check: the takeover of a run whose check failed decides the fire afresh", async () => {
    const { runs, job } = await reclaimedAfterSecondUpdate({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(RUNS_AFTER_RECLAIM);
    expect(job).toMatchObject({ status: 'success' });
  });

  it('checks a takeover of a run whose check failed though it waited for its start: a fire of a removed schedule never runs', async () => {
    const { runs, job } = await takeoverWaitsForItsStart({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual([]);
    expect(job).toMatchObject({ status: 'cancelled', result: { error: { type: 'ScheduleRemoved' } } });
  });

  it("leaves a cancellation made while a takeover's copy waited to the current definition, whose copy runs the fire once though it waited too", async () => {
    const { runs, job, woken, wokenAsV3 } = await takeoverCopyMeetsACancellation({
      jobStore: store,
      scheduleStore: store,
    });

    expect([woken, wokenAsV3].every((count) => count > 0)).toBe(true);
    expect(runs).toEqual(['2:v3']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("never runs a stale copy's reclaimed payload when a newer copy takes the run over after one more change: the fire runs once, as the current definition", async () => {
    const { runs, job } = await staleReclaimTakenOverByNewerCopy({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(['2:v4']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it('retries a run whose check passed as stored when an update timed before the check lands after it: never a second definition', async () => {
    const { runs, job } = await updateTimedBeforeCheckLandsAfterIt({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(['2:v1']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("runs a stale copy's fire once, as the current definition, when its worker vanished after its check failed, two updates later", async () => {
    const { runs, job } = await staleCopyAfterTwoUpdates({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(['2:v3']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it("checks the reaper's next attempt of a slot holder whose check failed: the fire runs once, as the current definition", async () => {
    const { runs, job } = await reapedAfterFailedCheck({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(['2:v2']);
    expect(job).toMatchObject({ status: 'success' });
  });

  it.each(RESUMED_COPY_VARIANTS)(
    "runs a fire once as the resume's copy when a stale copy's check failed and its worker vanished: the resume's copy %s",
    async (_, variant) => {
      const { runs, job } = await resumedCopyMeetsAFailedCheck({
        jobStore: store,
        scheduleStore: store,
        ...variant,
      });

      expect(runs).toEqual(['2:v1']);
      expect(job).toMatchObject({ status: 'success' });
    },
  );

  it("starts a fire as the run's revision when an older copy takes over a run whose check failed: the replacement it needs is sent", async () => {
    const { runs, job } = await olderCopyTakesOverAFailedCheck({ jobStore: store, scheduleStore: store });

    expect(runs).toEqual(['2:v2']);
    expect(job).toMatchObject({ status: 'success' });
  });
});
