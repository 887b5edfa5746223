import { describe, expect, it } from 'vitest';
import { scheduleJobId } from '../../../lib/core/model/job-id';
import { scheduleFireMessage } from '../../../lib/core/model/job-messages';
import { removeFinishedAfterLastFire } from '../../../lib/runtime/dispatch/finished-cleanup';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const every10s = { type: 'interval', seconds: 10, start_at: new Date(T0).toISOString() } as const;

/** `runs`: the fire times (s after T0) whose handler started, with their attempt. */
function platform(limits: { maxRunningJobs?: number } = {}) {
  const runs: string[] = [];
  const p = adminAndWorker({
    beat: {
      ...limits,
      retry: { maxAttempts: 3 },
      handler: (_payload, { fireTime, attempt }) =>
        void runs.push(`${((fireTime?.getTime() ?? 0) - T0) / SECOND}#${attempt}`),
    },
  });
  return { ...p, runs };
}

/** Adds `s`, every 10 s from T0 with `max_runs`, kept once finished: the add sends all its fires itself. */
async function addCapped(p: ReturnType<typeof platform>, maxRuns: number) {
  await p.admin({
    action: 'add_schedule',
    id: 's',
    task: 'beat',
    trigger: every10s,
    max_runs: maxRuns,
    keep_finished: true,
  });
}

/** The message of the fire at `T0 + seconds` under the schedule's revision as it stands: one a race over-sent. */
async function overSent(p: ReturnType<typeof platform>, seconds: number) {
  const schedule = await p.store.getSchedule('s');
  if (!schedule) throw new Error('not added');
  const fireTime = T0 + seconds * SECOND;
  const fire = { jobId: scheduleJobId('s', fireTime), fireTime, runAt: fireTime, startDeadline: null };
  return scheduleFireMessage(schedule, fire, p.clock.now());
}

/**
 * ADR 0008 §4: a fire of a schedule with `max_runs` counts as started before its handler runs, so no
 * more than `max_runs` start whatever its chain sent (two late readers of one note may each coalesce a
 * different missed fire), and a run counted once is never counted again.
 */
describe('the start of a capped schedule’s fires', () => {
  it('never starts more than max_runs when its chain sent one more: the extra ends cancelled for good', async () => {
    // Prepare: max_runs 3; the add sent 0, 10 and 20 s, and a race over-sent 30 s under the same revision
    const p = platform();
    await addCapped(p, 3);
    const extra = await overSent(p, 30);
    await p.queue.send([extra]);

    // Act: every message comes up, the extra one twice (SQS delivers at least once)
    await p.deliverDue(60);
    await p.deliver(extra);

    // Assess
    expect(p.runs).toEqual(['0#1', '10#1', '20#1']);
    expect(await p.store.getJob(`s@${T0 + 30 * SECOND}`, p.clock.now())).toMatchObject({
      status: 'cancelled',
      result: { error: { type: 'MaxRunsReached' } },
    });
    expect(await p.store.getSchedule('s')).toMatchObject({ startedRuns: 3, runs: 3, nextFireAt: null });
  });

  it('refuses whichever fire comes up past max_runs, an on-time one after a late extra', async () => {
    // Prepare: max_runs 2; the over-sent 20 s comes up before 10 s (its message was delivered late)
    const p = platform();
    await addCapped(p, 2);
    const extra = await overSent(p, 20);
    const late = p.takeMessage(10);

    // Act
    await p.deliverDue(5);
    await p.deliver(extra);
    await p.deliver(late);

    // Assess: two fires started, never three
    expect(p.runs).toEqual(['0#1', '20#1']);
    expect(await p.store.getJob(`s@${T0 + 10 * SECOND}`, p.clock.now())).toMatchObject({
      status: 'cancelled',
      result: { error: { type: 'MaxRunsReached' } },
    });
  });

  it('does not count a takeover of a counted run again: the run goes on, and the next fire still starts', async () => {
    // Prepare: max_runs 2; a worker claims 0 s, counts it as started, and vanishes inside its handler
    const p = platform();
    await addCapped(p, 2);
    const first = p.takeMessage(0);
    await p.claimAndVanish(first);
    const counted = await p.store.startCappedRun({
      scheduleId: 's',
      createdAt: T0,
      maxRuns: 2,
      jobId: `s@${T0}`,
      owner: 'worker-vanished',
      fireTime: T0,
    });

    // Act: its message comes back after the run's lease ended and takes the run over; then 10 s comes up
    p.clock.advance(60 * SECOND);
    await p.deliver(first);
    await p.deliverDue(90);

    // Assess
    expect(counted).toBe('started');
    expect(p.runs).toEqual(['0#2', '10#1']);
    expect(await p.store.getSchedule('s')).toMatchObject({ startedRuns: 2 });
    expect(await p.store.getJob(`s@${T0 + 10 * SECOND}`, p.clock.now())).toMatchObject({ status: 'success' });
  });

  it('counts the retry of a run whose worker vanished before its count: max_runs holds after a later change', async () => {
    // Prepare: max_runs 2; a worker claims 0 s and vanishes before it reads the schedule (nothing
    // counted); its task has a slot limit, so the tick's reaper retries the run once its lease ended
    const p = platform({ maxRunningJobs: 5 });
    await addCapped(p, 2);
    const { job, attempt } = p.takeMessage(0);
    const now = p.clock.now();
    const vanished = { owner: 'worker-vanished', now, leaseUntil: now + 30 * SECOND };
    await p.store.claimJob({ job, attempt, ...vanished, concurrencyLimit: 5, reclaimCancelledFire: true });

    // Act: the reaper sends attempt 2 (before the fire's own message comes back); 10 s runs; then the
    // trigger changes, which starts a chain for the runs left
    p.clock.advance(60 * SECOND);
    await p.tick();
    await p.deliverDue(90);
    await p.admin({ action: 'update_schedule', id: 's', trigger: { type: 'interval', seconds: 5 } });
    await p.runUntil(300);

    // Assess: the retry counted as the run's start (before, it ran uncounted and the new chain ran a third)
    expect(p.runs).toEqual(['10#1', '0#2']);
    expect(await p.store.getSchedule('s')).toMatchObject({ startedRuns: 2, nextFireAt: null });
  });

  it('runs a fire whose schedule its last fire removed between the fire’s check and its count', async () => {
    // Prepare: max_runs 2, not kept: the add sent 0 and 10 s. The 10 s fire (the last) comes up first, and
    // runs to its end, and the closing note removes the finished schedule (ADR 0011), while the 0 s fire
    // is between its check and its count.
    const p = platform();
    await p.admin({ action: 'add_schedule', id: 's', task: 'beat', trigger: every10s, max_runs: 2 });
    const first = await overSent(p, 0);
    const last = await overSent(p, 10);
    const startCappedRun = p.store.startCappedRun.bind(p.store);
    p.store.startCappedRun = async (input) => {
      if (input.jobId === first.job.id && (await p.store.getSchedule('s'))) {
        await p.deliver(last);
        await removeFinishedAfterLastFire(p.deps, 's', null);
      }
      return startCappedRun(input);
    };
    p.clock.set(T0 + 10 * SECOND);

    // Act
    await p.deliver(first);

    // Assess: the schedule is gone, and both fires ran once: the removal was the end of its runs, not a change
    expect(await p.store.getSchedule('s')).toBeUndefined();
    expect(p.runs).toEqual(['10#1', '0#1']);
    expect((await p.store.getJob(first.job.id, p.clock.now()))?.status).toBe('success');
  });

  it('goes on with a counted run taken over after two changes: its count is never spent on a run that is cancelled', async () => {
    // Prepare: max_runs 2; a worker claims 0 s, counts it as started and vanishes; then the schedule is
    // changed twice (a replace whose answer was lost and that was sent again), so the takeover cannot
    // tell from the schedule whether the changes came before the run was claimed
    const p = platform();
    await addCapped(p, 2);
    const first = p.takeMessage(0);
    await p.claimAndVanish(first);
    await p.store.startCappedRun({
      scheduleId: 's',
      createdAt: T0,
      maxRuns: 2,
      jobId: `s@${T0}`,
      owner: 'worker-vanished',
      fireTime: T0,
    });
    for (const rev of [1, 2]) await p.admin({ action: 'update_schedule', id: 's', payload: { rev } });

    // Act: its message comes back after the run's lease ended and takes the run over
    p.clock.advance(60 * SECOND);
    await p.deliver(first);

    // Assess: the counted run was retried, not cancelled
    expect(p.runs).toEqual(['0#2']);
    expect(await p.store.getJob(`s@${T0}`, p.clock.now())).toMatchObject({ status: 'success' });
  });
});
