import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import type { EpochMs } from '../../../lib/core/clock';
import type { FiresTakenBack } from '../../../lib/core/ports/schedule-store';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();

/** A memory store whose next pause first runs `beforePause` (another process acting in between). */
class InterleavedStore extends MemoryStore {
  beforePause: (() => Promise<void>) | undefined;

  override async pauseSchedule(id: string, now: EpochMs, takeBack?: FiresTakenBack) {
    const interleaved = this.beforePause;
    this.beforePause = undefined;
    await interleaved?.();
    return super.pauseSchedule(id, now, takeBack);
  }
}

/** `max_runs: 6`, every `every` s from T0, added at T0 − 1 s with a `lookahead` (default: 0–20 s sent ahead). */
async function platform(every = 10, lookahead = 30) {
  const runs: number[] = [];
  const store = new InterleavedStore();
  const p = adminAndWorker(
    {
      beat: {
        handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
      },
    },
    { scheduleStore: store, jobStore: store },
  );
  p.deps.config.lookaheadSeconds = lookahead;
  const tick = createTickHandler(() => p.deps);
  p.clock.set(T0 - SECOND);
  const trigger = { type: 'interval', seconds: every, start_at: iso(T0) };
  await p.admin({ action: 'add_schedule', id: 's', task: 'beat', trigger, max_runs: 6, keep_finished: true });
  return { ...p, store, runs, tick };
}

describe('a change that takes back the fires sent ahead, racing a tick or landing late', () => {
  it('re-reads and takes back what a tick dispatched between the read and the write', async () => {
    // Prepare: between the pause's read and its write, a tick sends 30 s (and so moves lastFireAt)
    const p = await platform();
    await p.deliverDue(2);
    p.store.beforePause = async () => {
      await p.tick();
    };

    // Act
    const paused = await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 3 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's' });
    for (let at = 3; at <= 300; at += 30) {
      await p.deliverDue(at);
      await p.tick();
    }

    // Assess: every fire sent ahead of the pause's settle margin (10 s to 30 s) was taken back once
    expect(paused.schedule).toMatchObject({ runs: 1, paused: true });
    expect(p.runs).toEqual([0, 10, 20, 30, 40, 50]);
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 6, nextFireAt: null });
  });

  it('re-reads when a tick dispatched further before a change that had nothing to take back', async () => {
    // Prepare: every 60 s with a 90 s lookahead: 0 s and 60 s sent, and ran. At 62 s nothing due after
    // the settle margin was sent, but a tick sends 120 s between the pause's read and its write
    const p = await platform(60, 90);
    await p.deliverDue(62);
    p.store.beforePause = async () => {
      await p.tick();
    };

    // Act
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + 63 * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's' });
    for (let at = 63; at <= 600; at += 30) {
      await p.deliverDue(at);
      await p.tick();
    }

    // Assess: 120 s, cancelled by the pause, was taken back and sent again once
    expect(p.runs).toEqual([0, 60, 120, 180, 240, 300]);
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 6, nextFireAt: null });
  });

  it('gives back to runs the fires that came due while a slow write was landing', async () => {
    // Prepare: the pause's write returns 9 s after the call began: 10 s may have run before it landed
    const p = await platform();
    await p.deliverDue(2);
    p.store.beforePause = async () => {
      p.clock.advance(9 * SECOND);
    };

    const paused = await p.admin({ action: 'pause_schedule', id: 's' });

    // 20 s stays taken back (due after the write returned plus the clock skew); 10 s is counted again
    expect(paused.schedule).toMatchObject({ runs: 2, paused: true });
    expect(p.logLines).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('took longer than its settle margin') }),
    );
  });
});
