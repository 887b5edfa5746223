import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../lib/core/json';
import { type AdminResponse, createAdminApi } from '../../lib/runtime/admin';
import { adminDependencies } from '../../lib/runtime/handlers/admin';
import { messagesInQueue } from '../support/sqs';
import { waitFor } from '../support/wait';
import { runInBackground, taskRegistry, useLocalServices } from './real-runtime';

const local = useLocalServices();

const SECOND = 1_000;
/**
 * How long the schedule fires: short enough for a test. Its fires are due too soon for a tick, so the
 * add sends them all to the queue at once (ADR 0008): every change meets fires in flight.
 */
const FIRING_SECONDS = 15;
/** Fires after a change that the tests need at the least (the change comes early in the schedule's window). */
const AFTER_CHANGE_SECONDS = 5;

interface Run {
  jobId: string;
  fireTime: number;
  payload: JsonValue;
}

/**
 * The real tick, worker and admin API on DynamoDB Local and the SQS emulator, with one task `beat`
 * that records each run, and a schedule `beat` of it firing every second from the next whole second
 * on, for `FIRING_SECONDS`.
 */
async function everySecondSchedule(payload: JsonValue = { v: 1 }) {
  const runtime = await local.runtime();
  const runs: Run[] = [];
  const tasks = {
    beat: {
      handler: (body: JsonValue, { jobId, fireTime }: { jobId: string; fireTime: Date | null }) => {
        runs.push({ jobId, fireTime: fireTime?.getTime() ?? 0, payload: body });
      },
    },
  };
  const api = createAdminApi(adminDependencies(runtime.deps, taskRegistry(tasks)));
  const admin = async (request: Record<string, unknown>) => {
    const response: AdminResponse = await api(request);
    if (!response.ok) throw new Error(`${String(request.action)} failed: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const startAt = Math.ceil(Date.now() / SECOND) * SECOND + SECOND;
  await admin({
    action: 'add_schedule',
    id: 'beat',
    task: 'beat',
    trigger: {
      type: 'interval',
      seconds: 1,
      start_at: new Date(startAt).toISOString(),
      end_at: new Date(startAt + FIRING_SECONDS * SECOND).toISOString(),
    },
    payload,
  });
  return {
    runtime,
    runs,
    admin,
    startAt,
    /** Runs the platform in the background. */
    start: () => runInBackground(local.sqs(), runtime, tasks),
    /** When each recorded run was claimed, as its job record says (`started_at`). */
    async startedAt(run: Run): Promise<number> {
      const job = await runtime.store.getJob(run.jobId, Date.now());
      return job?.startedAt ?? Number.NaN;
    },
    /**
     * Waits until each of `fires` has run (a second delivery of a fire that ran comes back only after its
     * lease, so the queue does not empty soon), for as long as the schedule fires and 20 s more (within the test's minute).
     */
    async ranEach(fires: readonly number[]) {
      await waitFor(
        async () => new Set(runs.map((run) => run.fireTime)),
        (ran) => fires.every((fire) => ran.has(fire)),
        startAt + FIRING_SECONDS * SECOND - Date.now() + 20 * SECOND,
      );
    },
    async jobsOfSchedule() {
      const page = await runtime.store.listJobs({ scheduleId: 'beat' }, { limit: 500 }, Date.now());
      return page.items;
    },
  };
}

/** How often each fire time ran. */
function runsPerFire(runs: readonly Run[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const run of runs) counts.set(run.fireTime, (counts.get(run.fireTime) ?? 0) + 1);
  return counts;
}

/** The fire times of the every-second schedule in [from, to]. */
function fireTimes(startAt: number, from: number, to: number): number[] {
  const first = startAt + Math.max(0, Math.ceil((from - startAt) / SECOND)) * SECOND;
  const last = Math.min(to, startAt + FIRING_SECONDS * SECOND);
  const times: number[] = [];
  for (let time = first; time <= last; time += SECOND) times.push(time);
  return times;
}

describe('schedule changes take effect for fires already sent to the queue', () => {
  it.each([
    ['remove_schedule', 'removed', 'ScheduleRemoved'],
    ['pause_schedule', 'paused', 'SchedulePaused'],
  ])(
    'starts no fire after %s returned (%s); the fires in flight are cancelled',
    async (action, _state, reason) => {
      // Prepare: fires run, and the rest of them are in the queue
      const beat = await everySecondSchedule();
      const platform = beat.start();
      await waitFor(
        async () => beat.runs.length,
        (count) => count >= 2,
      );

      // Act
      await beat.admin({ action, id: 'beat' });
      const returnedAt = Date.now();
      // every fire sent before the call has come up and been handled: the queue is empty
      await waitFor(
        () => messagesInQueue(local.sqs().client, beat.runtime.queue.queueUrl),
        (count) => count === 0,
      );
      await platform.stop();

      // Assess: every run was claimed (started) before the call returned
      const startedAfterReturn: Run[] = [];
      for (const run of beat.runs)
        if (!((await beat.startedAt(run)) < returnedAt)) startedAfterReturn.push(run);
      expect(startedAfterReturn).toEqual([]);
      const cancelled = (await beat.jobsOfSchedule()).filter((job) => job.status === 'cancelled');
      expect(cancelled.length).toBeGreaterThanOrEqual(2);
      expect(new Set(cancelled.map((job) => job.result?.error?.type))).toEqual(new Set([reason]));
    },
  );

  it('runs every fire that starts after update_schedule returned with the new payload, each once', async () => {
    // Prepare
    const beat = await everySecondSchedule({ v: 1 });
    const platform = beat.start();
    await waitFor(
      async () => beat.runs.length,
      (count) => count >= 2,
    );

    // Act
    await beat.admin({ action: 'update_schedule', id: 'beat', payload: { v: 2 } });
    const returnedAt = Date.now();
    const everyFire = fireTimes(beat.startAt, beat.startAt, Number.POSITIVE_INFINITY);
    await beat.ranEach(everyFire);
    await platform.stop();

    // Assess: after the call, only the new payload; no fire lost or run twice on the way
    const oldPayloadAfterReturn: Run[] = [];
    for (const run of beat.runs) {
      if ((await beat.startedAt(run)) >= returnedAt && (run.payload as { v: number }).v !== 2) {
        oldPayloadAfterReturn.push(run);
      }
    }
    expect(oldPayloadAfterReturn).toEqual([]);
    const counts = runsPerFire(beat.runs);
    expect(everyFire.filter((fire) => counts.get(fire) !== 1)).toEqual([]);
    expect([...counts.values()].filter((count) => count > 1)).toEqual([]);
    expect(beat.runs.filter((run) => (run.payload as { v: number }).v === 2).length).toBeGreaterThanOrEqual(
      AFTER_CHANGE_SECONDS,
    );
  });

  it('runs the fires after a pause and resume exactly once, sent again by the resume', async () => {
    // Prepare
    const beat = await everySecondSchedule();
    const platform = beat.start();
    await waitFor(
      async () => beat.runs.length,
      (count) => count >= 2,
    );

    // Act: paused until a fire came due and was cancelled, while most of its fires are still in the queue
    await beat.admin({ action: 'pause_schedule', id: 'beat' });
    const pausedAt = Date.now();
    await waitFor(
      () => beat.jobsOfSchedule(),
      (jobs) => jobs.some((job) => job.status === 'cancelled' && (job.fireTime ?? 0) > pausedAt),
    );
    const resumeCalledAt = Date.now();
    await beat.admin({ action: 'resume_schedule', id: 'beat' });
    const afterResume = fireTimes(beat.startAt, resumeCalledAt + SECOND, Number.POSITIVE_INFINITY);
    await beat.ranEach(afterResume);
    await platform.stop();

    // Assess: nothing started while paused; every fire from the resume on ran, each once
    const startedWhilePaused: Run[] = [];
    for (const run of beat.runs) {
      const startedAt = await beat.startedAt(run);
      if (startedAt >= pausedAt && startedAt < resumeCalledAt) startedWhilePaused.push(run);
    }
    expect(startedWhilePaused).toEqual([]);
    const counts = runsPerFire(beat.runs);
    expect(afterResume.length).toBeGreaterThanOrEqual(AFTER_CHANGE_SECONDS);
    const jobs = await beat.jobsOfSchedule();
    const notOnce = afterResume
      .filter((fire) => counts.get(fire) !== 1)
      .map((fire) => ({
        fromResume: fire - resumeCalledAt,
        runs: counts.get(fire) ?? 0,
        jobs: jobs
          .filter((job) => job.fireTime === fire)
          .map((job) => ({ status: job.status, attempt: job.attempt, error: job.result?.error?.type })),
      }));
    expect(notOnce).toEqual([]);
    expect([...counts.values()].filter((count) => count > 1)).toEqual([]);
  });

  it('shows a dispatched fire as queued in get_job and list_jobs, and cancel_job keeps it from running', async () => {
    // Prepare: add_schedule sent every fire to the queue
    const beat = await everySecondSchedule();
    const target = beat.startAt + 3 * SECOND;
    const targetId = `beat@${target}`;

    // Act
    const got = await beat.admin({ action: 'get_job', job_id: targetId });
    const listed = await beat.admin({ action: 'list_jobs', schedule_id: 'beat', status: 'queued' });
    const cancelled = await beat.admin({ action: 'cancel_job', job_id: targetId });
    const platform = beat.start();
    await waitFor(
      async () => beat.runs.some((run) => run.fireTime >= target + 2 * SECOND),
      (done) => done,
    );
    await platform.stop();

    // Assess
    expect(got.job).toMatchObject({ id: targetId, status: 'queued', schedule_id: 'beat', payload: { v: 1 } });
    expect((listed.jobs as { id: string; status: string }[]).map((job) => job.id)).toContain(targetId);
    expect(new Set((listed.jobs as { status: string }[]).map((job) => job.status))).toEqual(
      new Set(['queued']),
    );
    expect(cancelled.job).toMatchObject({ id: targetId, status: 'cancelled' });
    const ran = new Set(beat.runs.map((run) => run.fireTime));
    expect(ran.has(target)).toBe(false);
    expect(ran.has(target - SECOND) && ran.has(target + SECOND)).toBe(true);
  });
});
