import { describe, expect, it } from 'vitest';
import { scheduleJobId } from '../../../lib/core/model/job-id';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { scheduleFireMessage } from '../../../lib/runtime/scheduling/job-messages';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();

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

/**
 * A stale fire of a schedule with `max_runs` runs in place of the current definition's only when that
 * definition counted it (`<= lastFireAt`): its limit may stop it before a later fire time.
 */
describe('max_runs and stale fires sent again in place of the current definition', () => {
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
});
