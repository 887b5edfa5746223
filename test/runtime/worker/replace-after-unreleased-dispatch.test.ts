import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import type { ReleaseOutcome, ReleaseScheduleInput } from '../../../lib/core/ports/schedule-store';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();

/**
 * A memory store whose next release throws (the tick dies between its send and its release), or waits
 * for `releaseHeld` to be opened (a slow release, landing after other calls).
 */
class CrashingStore extends MemoryStore {
  crashNextRelease = false;
  /** The next lease applies, but its answer is lost: its tick sends nothing and leaves it leased. */
  loseNextLeaseAnswer = false;

  override async leaseSchedule(...args: Parameters<MemoryStore['leaseSchedule']>) {
    const leased = await super.leaseSchedule(...args);
    if (!this.loseNextLeaseAnswer) return leased;
    this.loseNextLeaseAnswer = false;
    throw new Error('the lease applied, but its answer was lost');
  }
  /** Runs inside the next pause's write, before it lands (a slow write). */
  beforePause: (() => Promise<void>) | undefined;

  override async pauseSchedule(...args: Parameters<MemoryStore['pauseSchedule']>) {
    const inside = this.beforePause;
    this.beforePause = undefined;
    await inside?.();
    return super.pauseSchedule(...args);
  }
  releaseHeld: Promise<void> | undefined;
  releaseReached: (() => void) | undefined;

  override async releaseSchedule(input: ReleaseScheduleInput): Promise<ReleaseOutcome> {
    if (this.crashNextRelease) {
      this.crashNextRelease = false;
      throw new Error('tick died between send and release');
    }
    const held = this.releaseHeld;
    this.releaseHeld = undefined;
    if (held) {
      this.releaseReached?.();
      await held;
    }
    return super.releaseSchedule(input);
  }
}

/** `max_runs: 12`, every 10 s from T0 (lookahead 90 s, schedule leases 120 s), added at T0 − 1 s. */
async function platform(coalesce = 'all') {
  const runs: number[] = [];
  const store = new CrashingStore();
  const p = adminAndWorker(
    {
      beat: {
        handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
      },
    },
    { scheduleStore: store, jobStore: store },
  );
  const tick = createTickHandler(() => p.deps);
  p.clock.set(T0 - SECOND);
  await p.admin({ action: 'add_schedule', ...definition(coalesce) });
  return { ...p, store, runs, tick };
}

function definition(coalesce = 'all') {
  const trigger = { type: 'interval', seconds: 10, start_at: iso(T0) };
  return { id: 's', task: 'beat', trigger, max_runs: 12, keep_finished: true, coalesce };
}

const firesUpTo = (last: number) => Array.from({ length: last / 10 + 1 }, (_, n) => n * 10);

/** How many fires of the schedule (every 5 s up to 600 s) ended cancelled. */
async function cancelledFires(p: Awaited<ReturnType<typeof platform>>) {
  let cancelled = 0;
  for (let at = 0; at <= 600; at += 5) {
    const job = await p.store.getJob(`s@${T0 + at * SECOND}`, p.clock.now());
    if (job?.status === 'cancelled') cancelled += 1;
  }
  return cancelled;
}

/** Ticks and delivers every 10 s from `from` until the schedule has long finished. */
async function runToTheEnd(p: Awaited<ReturnType<typeof platform>>, from: number) {
  for (let at = from; at <= 600; at += 10) {
    await p.deliverDue(at);
    await p.tick();
  }
}

/** ADR 0004: a schedule with `max_runs` never runs more distinct fires than `max_runs`. */
describe('a change of a schedule whose last dispatch sent fires but was not released', () => {
  it('counts the fires that dispatch sent and that ran before the replace, and runs no more than max_runs', async () => {
    // Prepare: the add sent 0 s … 80 s (runs 9). At 1 s a tick leases it, sends 90 s and dies before
    // its release: its lease lasts until 121 s, and the stored next fire time stays at 90 s.
    const p = await platform();
    p.clock.set(T0 + SECOND);
    p.store.crashNextRelease = true;
    await p.tick();
    expect(p.store.crashNextRelease).toBe(false);
    // 90 s runs as sent (its revision is still the current one), not counted yet
    await p.deliverDue(91);
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);

    // Act: at 91 s the schedule is replaced by the same definition, then everything runs to the end
    await p.admin({ action: 'add_schedule', ...definition(), conflict_policy: 'replace' });
    await runToTheEnd(p, 92);

    // Assess: 90 s was counted by the replace; twelve fires ran, and the schedule finished at max_runs
    expect(p.runs).toEqual(firesUpTo(110));
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it('counts them too when the release of that dispatch is only slow, landing after the replace', async () => {
    // Prepare: at 1 s a tick leases it and sends 90 s; its release waits until after the replace
    const p = await platform();
    p.clock.set(T0 + SECOND);
    let reached = () => {};
    const atRelease = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let open = () => {};
    p.store.releaseHeld = new Promise<void>((resolve) => {
      open = resolve;
    });
    p.store.releaseReached = reached;
    const slowTick = p.tick();
    await atRelease;
    await p.deliverDue(91);

    // Act: replaced at 91 s, then the release lands (superseded: it counts nothing)
    await p.admin({ action: 'add_schedule', ...definition(), conflict_policy: 'replace' });
    open();
    await slowTick;
    await runToTheEnd(p, 92);

    // Assess
    expect(p.runs).toEqual(firesUpTo(110));
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it('counts them when the change is a pause, so that the resume runs no more than max_runs', async () => {
    // Prepare: as above, the tick that sent 90 s died before its release, and 90 s ran
    const p = await platform();
    p.clock.set(T0 + SECOND);
    p.store.crashNextRelease = true;
    await p.tick();
    await p.deliverDue(91);

    // Act: paused at 91 s, resumed at 92 s
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 92 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's' });
    await runToTheEnd(p, 93);

    // Assess
    expect(p.runs).toEqual(firesUpTo(110));
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it.each([
    ['lands within its settle margin', 88],
    ['lands after its settle margin (a slow write)', 80],
  ])('counts a fire that dispatch sent and that ran while a pause was landing: it %s', async (_, pauseAt) => {
    // Prepare: the tick at 1 s sent 90 s and died before its release; the pause begins at `pauseAt`,
    // and 90 s runs (its revision still current) before the pause's write lands at 97 s
    const p = await platform();
    p.clock.set(T0 + SECOND);
    p.store.crashNextRelease = true;
    await p.tick();
    await p.deliverDue(pauseAt);
    p.store.beforePause = async () => {
      await p.deliverDue(97);
    };

    // Act
    p.clock.set(T0 + pauseAt * SECOND);
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 98 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's' });
    await runToTheEnd(p, 99);

    // Assess: 90 s ran once and was counted (by the pause, or by its give-back once it landed late)
    expect(p.runs).toEqual(firesUpTo(110));
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it.each([
    ['a new trigger', [...firesUpTo(80), 90, 95, 100]],
    ['a pause and a resume', [...firesUpTo(80), 90, 100, 110]],
  ])('runs the fires it counts for a dispatch that leased and sent nothing, after %s', async (kind, runs) => {
    // Prepare: at 1 s a tick's lease of it applies, but its answer is lost: nothing is sent, and the
    // lease (until 121 s) makes a change count 90 s as a fire that dispatch may have sent
    const p = await platform();
    p.clock.set(T0 + SECOND);
    p.store.loseNextLeaseAnswer = true;
    await p.tick();
    expect(p.store.loseNextLeaseAnswer).toBe(false);
    await p.deliverDue(86);

    // Act: the change at 86 s, then everything runs to the end
    if (kind === 'a new trigger') {
      const trigger = { type: 'interval', seconds: 5, start_at: iso(T0) };
      await p.admin({ action: 'update_schedule', id: 's', trigger });
    } else {
      await p.admin({ action: 'pause_schedule', id: 's' });
      p.clock.set(T0 + 87 * SECOND);
      await p.admin({ action: 'resume_schedule', id: 's' });
    }
    await runToTheEnd(p, 87);

    // Assess: 90 s, counted by the change, ran in place of the changed schedule's; twelve fires ran
    expect(p.runs).toEqual(runs);
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it('counts only the fire a coalescing plan sent, not every fire it missed', async () => {
    // Prepare: coalesce latest; no tick for 300 s, then one leases it at 390 s (it sends the latest
    // missed fire, 390 s, and 400 s … 470 s) and dies before its release
    const p = await platform('latest');
    await p.deliverDue(81);
    p.clock.set(T0 + 390 * SECOND);
    p.store.crashNextRelease = true;
    await p.tick();
    await p.deliverDue(401);

    // Act: replaced at 401 s
    await p.admin({ action: 'add_schedule', ...definition('latest'), conflict_policy: 'replace' });
    await runToTheEnd(p, 402);

    // Assess: 390 s and 400 s were counted, not the 30 fires missed before 390 s (runs 9 + 2 + 1). The
    // dead tick's lease lasts until 510 s: the plan then coalesces the fires missed since 410 s to 510 s
    expect(p.runs).toEqual([...firesUpTo(80), 390, 400, 510]);
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
  });

  it('never runs more than max_runs, whatever the change, its time and the fate of the last dispatch', async () => {
    const change = fc.constantFrom('replace', 'pause', 'trigger');
    const coalesce = fc.constantFrom('all', 'latest', 'earliest');
    await fc.assert(
      fc.asyncProperty(
        change,
        coalesce,
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('released', 'died before its release', 'lease answer lost'),
        async (kind, policy, tickAt, changeAfter, fate) => {
          // A tick at `tickAt` sends what is due and dies before its release (or releases, or sends
          // nothing: its lease applied but the answer was lost); the change comes `changeAfter` s later,
          // once the fires due by then ran
          const p = await platform(policy);
          p.clock.set(T0 + tickAt * SECOND);
          p.store.crashNextRelease = fate === 'died before its release';
          p.store.loseNextLeaseAnswer = fate === 'lease answer lost';
          await p.tick();
          const changeAt = tickAt + changeAfter;
          await p.deliverDue(changeAt);
          if (kind === 'replace') {
            await p.admin({ action: 'add_schedule', ...definition(policy), conflict_policy: 'replace' });
          } else if (kind === 'trigger') {
            const trigger = { type: 'interval', seconds: 5, start_at: iso(T0) };
            await p.admin({ action: 'update_schedule', id: 's', trigger });
          } else {
            await p.admin({ action: 'pause_schedule', id: 's' });
            p.clock.set(T0 + (changeAt + 1) * SECOND);
            await p.admin({ action: 'resume_schedule', id: 's' });
          }
          await runToTheEnd(p, changeAt + 1);

          expect(new Set(p.runs).size).toBeLessThanOrEqual(12);
          expect(p.runs.length).toBe(new Set(p.runs).size);
          expect(await p.store.getSchedule('s')).toMatchObject({ runs: 12, nextFireAt: null });
          // Finishing early only by fires cancelled while counted: no counted fire vanishes unsent
          expect(p.runs.length + (await cancelledFires(p))).toBeGreaterThanOrEqual(12);
        },
      ),
      { numRuns: 150 },
    );
  });
});
