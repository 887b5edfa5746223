import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scheduleJobId } from '../../../lib/core/model/job-id';
import { scheduleFireMessage } from '../../../lib/core/model/job-messages';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every = (seconds: number) => ({ type: 'interval', seconds, start_at: iso(T0) }) as const;

/** Admin API, tick and worker on one in-memory platform; `runs` lists the fire times (s after T0) that ran. */
function platform() {
  const runs: number[] = [];
  const p = adminAndWorker({
    beat: {
      handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
    },
  });
  return {
    ...p,
    runs,
    async stored(id: string) {
      const schedule = await p.deps.scheduleStore.getSchedule(id);
      if (!schedule) throw new Error(`schedule ${id} is gone`);
      return schedule;
    },
  };
}

async function addLimited(
  p: ReturnType<typeof platform>,
  trigger: Record<string, unknown> = every(10),
  maxRuns = 6,
  coalesce = 'latest',
) {
  p.clock.set(T0 - SECOND);
  await p.admin({
    action: 'add_schedule',
    id: 's',
    task: 'beat',
    trigger,
    max_runs: maxRuns,
    coalesce,
    keep_finished: true,
  });
}

/**
 * ADR 0008 §4: a pause, a new trigger or a replace cancels the fires a capped schedule's chain sent
 * ahead; the new chain carries the fires that started (`startedRuns`), so the fires sent in their place
 * count once and the schedule runs exactly `max_runs` fires. No fire starts beyond `max_runs` either.
 */
describe('max_runs across changes that cancel fires sent ahead', () => {
  it('runs max_runs fires when a pause cancels fires sent ahead and a resume sends them again', async () => {
    // Prepare: adding it sends all 6 fires (0..50 s) at once (its first chunk holds them) and finishes it
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    // Act: pause after two ran (the other four are cancelled when they come), resume a second later
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 13 * SECOND);
    const resumed = await p.admin({ action: 'resume_schedule', id: 's' });
    await p.runUntil(600);

    // Assess: the resume sent the four fires again at once, and counted them once
    expect(resumed).toMatchObject({ dispatched_jobs: 4, schedule: { runs: 6, finished: true } });
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, nextFireAt: null, lastFireAt: T0 + 50 * SECOND });
  });

  it('answers the pause with the runs that started, not the fires it cancelled', async () => {
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    const paused = await p.admin({ action: 'pause_schedule', id: 's' });

    expect(paused.schedule).toMatchObject({ runs: 2, paused: true });
    expect(await p.stored('s')).toMatchObject({ runs: 2, lastFireAt: T0 + 10 * SECOND });
  });

  it('runs a fire due just after a pause and resume once, sent by the old chain and by the resumed one', async () => {
    // Prepare: paused at 16 s (0 and 10 s started), resumed at 17 s: its chain sends 20 s again
    const p = platform();
    await addLimited(p);
    await p.runUntil(16);
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 17 * SECOND);

    await p.admin({ action: 'resume_schedule', id: 's' });
    await p.runUntil(600);

    // Its old message comes up after the resume and runs in the resumed definition's place (one queue
    // hop later), counted once
    expect([...p.runs].sort((a, b) => a - b)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, nextFireAt: null });
  });

  it('replays what a pause cancelled, each fire counted once, up to max_runs', async () => {
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 34 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's', replay_missed: true });
    await p.runUntil(600);

    // 20 s and 30 s were missed while paused: coalesce `latest` (the default) replays 30 s alone, and
    // the old fire at 20 s does not run in its place
    expect(p.runs).toEqual([0, 10, 30, 40, 50, 60]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, nextFireAt: null });
  });

  it('replays after a fire that started while the pause was on its way: it counts once, and max_runs fires run', async () => {
    // Prepare: every fire kept (coalesce all); 0 and 10 s ran; the pause is called at 12 s
    const p = platform();
    await addLimited(p, every(10), 6, 'all');
    await p.runUntil(12);
    const pauseSchedule = p.store.pauseSchedule.bind(p.store);
    p.store.pauseSchedule = async (input) => {
      // ...and is written only after 20 s (due after the pause began) has come up and started
      p.clock.set(T0 + 20 * SECOND);
      await p.deliver(p.takeMessage(20));
      return pauseSchedule(input);
    };

    // Act: replay what the pause missed
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 34 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's', replay_missed: true });
    await p.runUntil(600);

    // Assess: the replay starts after 20 s, which ran and counts: its own 20 s would not run again
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, startedRuns: 6, nextFireAt: null });
  });

  it('runs max_runs fires when a new trigger cancels the old one’s fires sent ahead', async () => {
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    const updated = await p.admin({ action: 'update_schedule', id: 's', trigger: every(5) });
    await p.runUntil(600);

    expect(updated).toMatchObject({ dispatched_jobs: 4, schedule: { runs: 6, finished: true } });
    expect(p.runs).toEqual([0, 10, 15, 20, 25, 30]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, nextFireAt: null, lastFireAt: T0 + 30 * SECOND });
  });

  it('runs max_runs fires when a replace cancels the old definition’s fires sent ahead', async () => {
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    await p.admin({
      action: 'add_schedule',
      id: 's',
      task: 'beat',
      trigger: every(5),
      max_runs: 6,
      keep_finished: true,
      conflict_policy: 'replace',
    });
    await p.runUntil(600);

    expect(p.runs).toEqual([0, 10, 15, 20, 25, 30]);
    expect(await p.stored('s')).toMatchObject({ runs: 6, nextFireAt: null });
  });

  it('never runs an old fire beyond max_runs when the new trigger also fires then', async () => {
    // Prepare: the fires sent ahead at 20..80 s are also the new trigger's fire times, and the new
    // trigger reaches max_runs at 60 s: the old fires at 70 and 80 s must not run in its place
    const p = platform();
    await addLimited(p, every(10), 12);
    await p.runUntil(12);

    await p.admin({ action: 'update_schedule', id: 's', trigger: every(5) });
    await p.runUntil(600);

    expect(p.runs).toEqual([0, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]);
    expect(await p.stored('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it('keeps counting the fires sent before max_runs was raised: they still run, and its chain goes on after them', async () => {
    // Prepare: every minute, max_runs 4: the add sent 0..3 min and finished it; 0 ran
    const p = platform();
    await addLimited(p, { type: 'cron', expression: '* * * * *' }, 4);
    await p.runUntil(30);

    // Act
    const raised = await p.admin({ action: 'update_schedule', id: 's', max_runs: null });
    await p.runUntil(630);
    const { schedule } = (await p.admin({ action: 'get_schedule', id: 's' })) as {
      schedule: { runs: number; last_fire_time: string };
    };

    // Assess: each fire once; `runs` counts every fire from the first to the last sent
    expect(raised.schedule).toMatchObject({
      runs: 4,
      finished: false,
      next_fire_time: '2026-03-02T10:04:00Z',
    });
    expect(p.runs).toEqual([0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600]);
    expect(schedule.runs).toBe((Date.parse(schedule.last_fire_time) - T0) / 60_000 + 1);
  });

  it('counts once a fire due at the very instant of a replace: the new chain starts after it', async () => {
    // Prepare: every 10 s without max_runs; the add sent 0..230 s; 0..20 s ran, the last at the very
    // millisecond of the replace
    const p = platform();
    p.clock.set(T0 - SECOND);
    const definition = { id: 's', task: 'beat', trigger: every(10), keep_finished: true };
    await p.admin({ action: 'add_schedule', ...definition });
    await p.deliverDue(20);

    // Act
    await p.admin({ action: 'add_schedule', ...definition, conflict_policy: 'replace' });
    const startedAt = await p.stored('s');
    await p.runUntil(300);
    const { schedule } = (await p.admin({ action: 'get_schedule', id: 's' })) as {
      schedule: { runs: number; last_fire_time: string };
    };

    // Assess
    expect(startedAt).toMatchObject({ runs: 3, lastFireAt: T0 + 20 * SECOND, nextFireAt: T0 + 30 * SECOND });
    expect(p.runs).toEqual(Array.from({ length: 31 }, (_, n) => n * 10));
    expect(schedule.runs).toBe((Date.parse(schedule.last_fire_time) - T0) / (10 * SECOND) + 1);
  });

  it('never runs, in place of a fire, one its chain did not send', async () => {
    // Prepare: the add's own dispatch sends 200..220 s and reaches max_runs 3; 220 s and 230 s were also
    // sent under that revision (a race over-sent them), then a payload update changes the revision
    const p = platform();
    p.clock.set(T0 + 150 * SECOND);
    const trigger = { type: 'interval', seconds: 10, start_at: iso(T0 + 200 * SECOND) } as const;
    await p.admin({
      action: 'add_schedule',
      id: 's',
      task: 'beat',
      trigger,
      max_runs: 3,
      keep_finished: true,
    });
    const sentUnder = await p.stored('s');
    const stale = [220, 230].map((seconds) => {
      const fireTime = T0 + seconds * SECOND;
      const fire = { jobId: scheduleJobId('s', fireTime), fireTime, runAt: fireTime, startDeadline: null };
      return scheduleFireMessage(sentUnder, fire, p.clock.now());
    });
    await p.queue.send(stale);
    await p.admin({ action: 'update_schedule', id: 's', payload: { changed: true } });

    await p.runUntil(600);

    expect(p.runs).toEqual([200, 210, 220]);
    expect(await p.stored('s')).toMatchObject({ runs: 3, nextFireAt: null });
  });

  it('runs exactly max_runs fires, each once, across any changes', async () => {
    const change = fc.record({
      // Changes land 2 s after a multiple of 5 s, between fire times (every 5, 10 or 15 s)
      at: fc.integer({ min: 0, max: 40 }).map((step) => step * 5 + 2),
      kind: fc.constantFrom('pause', 'resume', 'replay', 'trigger', 'replace'),
      interval: fc.constantFrom(5, 10, 15),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(change, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 14 }),
        fc.constantFrom('latest', 'earliest', 'all'),
        async (changes, maxRuns, coalesce) => {
          const p = platform();
          await addLimited(p, every(10), maxRuns, coalesce);
          for (const { at, kind, interval } of [...changes].sort((a, b) => a.at - b.at)) {
            await p.runUntil(Math.max(at, (p.clock.now() - T0) / SECOND));
            await applyChange(p, kind, interval, maxRuns);
          }
          await p.admin({ action: 'resume_schedule', id: 's' });
          await p.runUntil(1_200);

          const ran = p.runs;
          expect(new Set(ran).size).toBe(ran.length);
          expect(ran.length).toBe(maxRuns);
          expect(await p.stored('s')).toMatchObject({ runs: maxRuns, nextFireAt: null });
        },
      ),
      { numRuns: 80 },
    );
    // 80 runs of a platform each: the unit timeout leaves too little room on a loaded machine
  }, 60_000);
});

async function applyChange(p: ReturnType<typeof platform>, kind: string, interval: number, maxRuns: number) {
  const id = 's';
  if (kind === 'pause') await p.admin({ action: 'pause_schedule', id });
  if (kind === 'resume') await p.admin({ action: 'resume_schedule', id });
  if (kind === 'replay') await p.admin({ action: 'resume_schedule', id, replay_missed: true });
  if (kind === 'trigger') await p.admin({ action: 'update_schedule', id, trigger: every(interval) });
  if (kind === 'replace') {
    const current = await p.stored(id);
    await p.admin({
      action: 'add_schedule',
      id,
      task: 'beat',
      trigger: every(interval),
      max_runs: maxRuns,
      keep_finished: true,
      paused: current.paused,
      coalesce: current.coalesce,
      conflict_policy: 'replace',
    });
  }
}
