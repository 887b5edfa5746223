import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scheduleJobId } from '../../../lib/core/model/job-id';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { scheduleFireMessage } from '../../../lib/runtime/scheduling/job-messages';
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
  const tick = createTickHandler(() => p.deps);
  return {
    ...p,
    runs,
    /** Ticks every 30 s up to `T0 + seconds`, delivering each message at its run time. */
    async runUntil(seconds: number) {
      for (let at = (p.clock.now() - T0) / SECOND; at <= seconds; at += 30) {
        await p.deliverDue(at);
        await tick();
      }
      await p.deliverDue(seconds);
    },
    async stored(id: string) {
      const schedule = await p.deps.scheduleStore.getSchedule(id);
      if (!schedule) throw new Error(`schedule ${id} is gone`);
      return schedule;
    },
  };
}

async function addLimited(
  p: ReturnType<typeof platform>,
  trigger = every(10),
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
 * `runs` counts the fire times dispatched. A pause, or a new trigger, cancels the fires already sent
 * ahead; they must leave `runs` again, or the fires sent in their place are counted twice and the
 * schedule finishes before `max_runs` fires ran. Fires may never run beyond `max_runs` either.
 */
describe('max_runs across changes that cancel fires sent ahead', () => {
  it('runs max_runs fires when a pause cancels fires sent ahead and a resume sends them again', async () => {
    // Prepare: adding it sends all 6 fires (0..50 s) at once: the lookahead holds them
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

  it('answers the pause with the fires it cancelled taken back from runs', async () => {
    const p = platform();
    await addLimited(p);
    await p.runUntil(12);

    const paused = await p.admin({ action: 'pause_schedule', id: 's' });

    expect(paused.schedule).toMatchObject({ runs: 2, paused: true });
    expect(await p.stored('s')).toMatchObject({ runs: 2, lastFireAt: T0 + 10 * SECOND });
  });

  it('runs a fire due within the margin of a pause when it comes up after the resume', async () => {
    // Prepare: paused at 16 s, the fire at 20 s stays counted (within the 5 s margin); resumed at 17 s
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

  it('never runs, in place of a fire, one that a max_runs schedule did not count', async () => {
    // Prepare: a tick sent the fires at 220 s and 230 s, but a payload update superseded its advance:
    // neither was counted. The schedule's own dispatch then reaches max_runs 3 at 220 s.
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

  it('never runs more than max_runs, and finishes short of it only by fires due within the settle margin of a change', async () => {
    const change = fc.record({
      // Changes land 2 s after a multiple of 5 s: the one fire time (every 5, 10 or 15 s) within the
      // settle margin after a change may already have started when it lands, so it stays counted
      // (`CHANGE_SETTLE_MS`): the schedule may finish that fire early, never late.
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
          const cancelling = changes.filter(({ kind }) => ['pause', 'trigger', 'replace'].includes(kind));
          expect(new Set(ran).size).toBe(ran.length);
          expect(ran.length).toBeLessThanOrEqual(maxRuns);
          expect(ran.length).toBeGreaterThanOrEqual(maxRuns - cancelling.length);
          expect(await p.stored('s')).toMatchObject({ runs: maxRuns, nextFireAt: null });
        },
      ),
      { numRuns: 80 },
    );
  });
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
