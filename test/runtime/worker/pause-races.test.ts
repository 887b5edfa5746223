import { describe, expect, it, vi } from 'vitest';
import { idAtPhase, SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

/** The schedule: its chunks start at the grid's boundaries (T0 is one), so the fires a tick sends ahead are known. */
const S = idAtPhase('s');

const iso = (instant: number) => new Date(instant).toISOString();

/**
 * A schedule every `every` s from T0 (`max_runs` when given, kept once finished), added at T0 − 1 s: the
 * add sends the fires of its first two chunks (0..230 s) itself, and its chain's next note is read by the
 * tick from 90 s on. `runs` lists the fire times (s after T0) that ran.
 */
async function platform(every: number, maxRuns?: number, limits: { maxRunningJobs?: number } = {}) {
  const runs: number[] = [];
  const p = adminAndWorker({
    beat: {
      ...limits,
      handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
    },
  });
  p.clock.set(T0 - SECOND);
  const trigger = { type: 'interval', seconds: every, start_at: iso(T0) };
  await p.admin({
    action: 'add_schedule',
    id: S,
    task: 'beat',
    trigger,
    keep_finished: true,
    ...(maxRuns !== undefined && { max_runs: maxRuns }),
  });
  return { ...p, runs };
}

/** The next `pause_schedule` write first runs `meanwhile` (another process acting between its read and its write). */
function beforeThePauseLands(p: Awaited<ReturnType<typeof platform>>, meanwhile: () => Promise<unknown>) {
  const pause = p.store.pauseSchedule.bind(p.store);
  vi.spyOn(p.store, 'pauseSchedule').mockImplementationOnce(async (input) => {
    await meanwhile();
    return pause(input);
  });
}

describe('a pause racing the dispatch of its schedule', () => {
  it('cancels what a tick sent between the pause’s read and its write; the resume still runs max_runs fires', async () => {
    // Prepare: every 60 s, max_runs 6: the add sent 0..180 s; 0 s and 60 s ran. At 95 s the pause
    // reads the schedule, then a tick reads the chain's note and sends its last fires (240, 300 s),
    // finishing the schedule, before the pause lands
    const p = await platform(60, 6);
    await p.deliverDue(95);
    beforeThePauseLands(p, () => p.tick());

    // Act
    const paused = await p.admin({ action: 'pause_schedule', id: S });
    const sentWhilePausing = p.queue.sent.map((message) => message.job.fireTime);
    await p.deliverDue(400);
    const ranWhilePaused = [...p.runs];
    await p.admin({ action: 'resume_schedule', id: S });
    await p.runUntil(1_000);

    // Assess
    expect(sentWhilePausing).toEqual(expect.arrayContaining([T0 + 240 * SECOND, T0 + 300 * SECOND]));
    expect(paused.schedule).toMatchObject({ paused: true, runs: 2 });
    expect(ranWhilePaused).toEqual([0, 60]);
    expect(p.runs).toEqual([0, 60, 420, 480, 540, 600]);
    expect(await p.store.getSchedule(S)).toMatchObject({ runs: 6, nextFireAt: null, startedRuns: 6 });
  });

  it('runs none of the fires a tick sent under it once the pause returned, and counts only those due before it', async () => {
    // Prepare: every 10 s: the add sent 0..230 s; at 95 s a tick sends 240..350 s between the pause's
    // read and its write
    const p = await platform(10);
    await p.deliverDue(95);
    beforeThePauseLands(p, () => p.tick());

    // Act
    const paused = await p.admin({ action: 'pause_schedule', id: S });
    await p.runUntil(600);

    // Assess: 0..90 s ran (10 fires); every fire after the pause was cancelled; the pause kept the next
    // fire of the note it read
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(paused.schedule).toMatchObject({
      paused: true,
      runs: 10,
      last_fire_time: iso(T0 + 90 * SECOND).replace('.000Z', 'Z'),
      next_fire_time: iso(T0 + 240 * SECOND).replace('.000Z', 'Z'),
    });
    const cancelled = await p.store.getJob(`${S}@${T0 + 300 * SECOND}`, p.clock.now());
    expect(cancelled).toMatchObject({ status: 'cancelled', result: { error: { type: 'SchedulePaused' } } });
  });

  it('counts a capped fire that started while the pause was landing: the resume runs max_runs fires in all', async () => {
    // Prepare: every 10 s, max_runs 6: the add sent all six fires (0..50 s) and finished the schedule;
    // 0 s ran. The pause reads it at 2 s; the fire at 10 s starts before the pause lands
    const p = await platform(10, 6);
    await p.deliverDue(2);
    beforeThePauseLands(p, () => p.deliverDue(10));

    // Act
    const paused = await p.admin({ action: 'pause_schedule', id: S });
    p.clock.set(T0 + 11 * SECOND);
    const resumed = await p.admin({ action: 'resume_schedule', id: S });
    await p.runUntil(600);

    // Assess: the pause answered the runs it read; the resume counted the fire that started meanwhile
    // and sent the four fires left
    expect(paused.schedule).toMatchObject({ paused: true, runs: 1 });
    expect(resumed).toMatchObject({ dispatched_jobs: 4, schedule: { runs: 6, finished: true } });
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50]);
    expect(await p.store.getSchedule(S)).toMatchObject({ runs: 6, nextFireAt: null, startedRuns: 6 });
  });

  it('runs a fire whose older copy held its slot while the replay’s copy came: the copy comes back for it', async () => {
    // Prepare: one slot, every 10 s, max_runs 2 (the add sent 0 s and 10 s), paused just before 0 s.
    // A worker claims 0 s with the task's slot, and its check is slow; the resume (replaying what was
    // missed) sends its own copy of 0 s, which arrives while that claim holds the job
    const p = await platform(10, 2, { maxRunningJobs: 1 });
    await p.admin({ action: 'pause_schedule', id: S });
    p.clock.set(T0);
    const older = p.takeMessage(0);
    const claim = { owner: 'slow-worker', now: T0, leaseUntil: T0 + 30 * SECOND, concurrencyLimit: 1 };
    await p.store.claimJob({ job: older.job, attempt: 1, ...claim, reclaimCancelledFire: true });
    p.clock.set(T0 + SECOND);
    await p.admin({ action: 'resume_schedule', id: S, replay_missed: true });
    const replayed = p.takeMessage(0);

    // Act: the replay's copy arrives; then the slow check, which read the schedule paused, cancels the
    // older copy (a later delivery may claim it again); the copy comes back if it asked to
    const whileHeld = await p.deliver(replayed);
    await p.store.finishJob({
      jobId: older.job.id,
      owner: 'slow-worker',
      result: { outcome: 'cancelled', startedAt: T0, finishedAt: p.clock.now(), attempt: 1 },
      expiresAt: p.clock.now() + 60 * SECOND,
      reclaimable: true,
      heldSlot: { task: 'beat', carriedOn: false },
    });
    p.clock.set(T0 + 32 * SECOND);
    if (whileHeld.batchItemFailures.length > 0) await p.deliver(replayed);
    await p.runUntil(300);

    // Assess: the copy came back once the older claim's lease was over, and ran the fire (before, it
    // was dropped as a duplicate, and the fire cancelled by the older copy's check never ran)
    expect(p.queue.visibilityChanges.map((change) => change.seconds)).toEqual([30]);
    expect(p.runs).toEqual([0, 10]);
    expect(await p.store.getSchedule(S)).toMatchObject({ startedRuns: 2, nextFireAt: null });
  });
});
