import { describe, expect, it } from 'vitest';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();
const every10s = { type: 'interval', seconds: 10, start_at: iso(T0) } as const;

function platform() {
  const fires: number[] = [];
  const p = adminAndWorker({
    beat: {
      handler: (_payload, { fireTime }) => void fires.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
    },
  });
  return {
    ...p,
    fires,
    async state(id: string) {
      const answer = await p.api({ action: 'get_schedule', id });
      return answer.ok
        ? (answer.result as { schedule: Record<string, unknown> }).schedule
        : answer.error.code;
    },
  };
}

/** A schedule kept after it finished by reaching max_runs 2 (both fires ran). */
async function keptFinishedAtMaxRuns() {
  const p = platform();
  await p.admin({
    action: 'add_schedule',
    id: 's',
    task: 'beat',
    trigger: every10s,
    max_runs: 2,
    keep_finished: true,
  });
  await p.deliverDue(30);
  return p;
}

/** ADR 0004: `conflict_policy: replace` keeps `runs`; a max_runs at or below them finishes the schedule. */
describe('add_schedule replacing a schedule at its max_runs', () => {
  it('answers it finished, and removes it (keep_finished false) since its last job has ended', async () => {
    const p = await keptFinishedAtMaxRuns();

    const replaced = await p.admin({
      action: 'add_schedule',
      id: 's',
      task: 'beat',
      trigger: every10s,
      max_runs: 2,
      conflict_policy: 'replace',
    });
    await p.deliverDue(200);
    await p.tick();

    expect(replaced).toMatchObject({ status: 'replaced', dispatched_jobs: 0 });
    expect(replaced.schedule).toMatchObject({ runs: 2, max_runs: 2, finished: true, next_fire_time: null });
    expect(p.fires).toEqual([0, 10]);
    expect(await p.state('s')).toBe('schedule_not_found');
  });

  it('answers a kept one finished, not with a next fire time it will never have', async () => {
    const p = await keptFinishedAtMaxRuns();

    const replaced = await p.admin({
      action: 'add_schedule',
      id: 's',
      task: 'beat',
      trigger: { type: 'cron', expression: '0 * * * *' },
      max_runs: 2,
      keep_finished: true,
      conflict_policy: 'replace',
    });

    expect(replaced.schedule).toMatchObject({ runs: 2, max_runs: 2, finished: true, next_fire_time: null });
    expect(await p.state('s')).toMatchObject({ finished: true, runs: 2 });
  });
});
