import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import type { Schedule } from '../../../lib/core/model/schedule';
import { SECOND, T0 } from '../support';
import {
  dispatchRuntime,
  expectSentOnceEach,
  fireTimes,
  interval,
  MINUTE,
  ranOnceEach,
} from './dispatch-harness';

const OFTEN = interval(10);
const UNTIL = T0 + 15 * MINUTE;
const CHANGE_AT = T0 + 5 * MINUTE;

/**
 * A schedule `raced` every 10 s from T0 (added through the admin API), run by a tick a minute (5 s past
 * the minute, between two fire times) and a worker that runs each fire at its run time. At the first
 * tick from `CHANGE_AT` that reads the schedule's item for a note, the admin request is made after that
 * read and before the tick sends the note's fires and writes its successor: the tick goes on with the
 * item it read (ADR 0008 with ADR 0002). A `request` function gets the schedule's `runs` as the admin
 * API reads it just before.
 */
async function raceChange(request: Record<string, unknown> | ((runs: number) => Record<string, unknown>)) {
  const runtime = dispatchRuntime();
  runtime.clock.set(T0 - 5 * MINUTE);
  await runtime.add('raced', OFTEN, { payload: { n: 1 } });
  let changedAt: EpochMs | undefined;
  let changing = false;
  let runsBefore = 0;
  const readSchedules = runtime.store.readSchedules.bind(runtime.store);
  runtime.store.readSchedules = async (ids: readonly string[]): Promise<Map<string, Schedule>> => {
    const items = await readSchedules(ids);
    if (!changing && runtime.clock.now() >= CHANGE_AT && items.has('raced')) {
      // The change's own reads (a new chain's first fires) are not raced again
      changing = true;
      const read = await runtime.admin({ action: 'get_schedule', id: 'raced' });
      runsBefore = (read.schedule as { runs: number }).runs;
      const change = typeof request === 'function' ? request(runsBefore) : request;
      await runtime.admin({ id: 'raced', ...change });
      changedAt = runtime.clock.now();
    }
    return items;
  };
  /** Fire times the racing tick sent under the schedule's first version once the change had returned. */
  const staleSends: number[] = [];
  /** The same, by the ticks after it: the old chain must have stopped. */
  const laterStaleSends: number[] = [];
  runtime.clock.set(T0 - 5 * MINUTE + 5 * SECOND);
  await runtime.tickEveryMinuteUntil(UNTIL, async (at) => {
    for (const { message } of runtime.sent.filter((s) => s.at >= at && s.at < at + MINUTE)) {
      if (changedAt === undefined || message.revision?.version !== 1) continue;
      (changedAt === at ? staleSends : laterStaleSends).push(message.job.fireTime ?? 0);
    }
    // The fires due before the next tick run at their run times
    await runtime.deliverDue(at + MINUTE - 1);
  });
  if (changedAt === undefined) throw new Error('the change never raced a tick');
  // The race is real: the tick sent fires of the old version after the change returned
  expect(staleSends.length).toBeGreaterThan(0);
  expect(laterStaleSends).toEqual([]);
  // One chain dispatches the fires after the change: none of them twice
  expectSentOnceEach(runtime.sent.filter((s) => s.by !== 'worker' && (s.message.revision?.version ?? 1) > 1));
  return { runtime, changedAt, runsBefore, staleSends };
}

describe('a change made while a dispatch sends from the item it read (ADR 0008, ADR 0002)', () => {
  it('pause: no fire starts after the pause returned, and nothing is sent from its old chain again', async () => {
    const { runtime, changedAt } = await raceChange({ action: 'pause_schedule' });

    const runs = [...runtime.runs.values()].flat();
    expect(runs.filter((run) => run.startedAt >= changedAt)).toEqual([]);
    // Every fire due before the pause ran, each once
    expect(ranOnceEach(runtime.runs)).toEqual({ times: fireTimes(OFTEN, T0, changedAt), once: true });
    expect(runtime.sentOf('raced').filter((s) => s.at >= changedAt + MINUTE)).toEqual([]);
    // The fires sent before the pause came up after it and were cancelled by the worker's check
    const firstAfter = fireTimes(OFTEN, changedAt + 1, UNTIL)[0];
    expect(await runtime.store.getJob(`raced@${firstAfter}`, runtime.clock.now())).toMatchObject({
      status: 'cancelled',
    });
  });

  it('remove: no fire starts after the removal returned, and nothing is sent from its old chain again', async () => {
    const { runtime, changedAt } = await raceChange({ action: 'remove_schedule' });

    const runs = [...runtime.runs.values()].flat();
    expect(runs.filter((run) => run.startedAt >= changedAt)).toEqual([]);
    expect(await runtime.store.getSchedule('raced')).toBeUndefined();
    expect(runtime.sentOf('raced').filter((s) => s.at >= changedAt + MINUTE)).toEqual([]);
  });

  it('update of the payload: its chain goes on; every fire runs once, each after the update with the new payload', async () => {
    const { runtime, changedAt } = await raceChange({ action: 'update_schedule', payload: { n: 2 } });

    expect(ranOnceEach(runtime.runs)).toEqual({ times: fireTimes(OFTEN, T0, UNTIL), once: true });
    const after = [...runtime.runs.values()].flat().filter((run) => run.startedAt >= changedAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((run) => JSON.stringify(run.payload) === JSON.stringify({ n: 2 }))).toBe(true);
    expect(await runtime.store.getSchedule('raced')).toMatchObject({ version: 2 });
  });

  it('update of the trigger: a new chain; nothing of the old trigger starts after the update returned', async () => {
    const every15s = interval(15);
    const { runtime, changedAt } = await raceChange({ action: 'update_schedule', trigger: every15s });

    const runs = [...runtime.runs.values()].flat();
    const before = runs.filter((run) => run.startedAt < changedAt).map((run) => run.fireTime);
    const after = runs.filter((run) => run.startedAt >= changedAt).map((run) => run.fireTime);
    expect(before.sort((a, b) => a - b)).toEqual(fireTimes(OFTEN, T0, changedAt));
    expect(after.sort((a, b) => a - b)).toEqual(fireTimes(every15s, changedAt, UNTIL));
    expect(ranOnceEach(runtime.runs).once).toBe(true);
  });

  it('update that sets max_runs: a new chain; the runs stop at the cap, counting the fires dispatched before', async () => {
    const { runtime, runsBefore, staleSends } = await raceChange(
      // Kept once finished: no removal of the schedule stops the fires beyond the cap in its place
      (runsSoFar) => ({ action: 'update_schedule', max_runs: runsSoFar + 5, keep_finished: true }),
    );

    expect(runsBefore).toBeGreaterThan(20);
    expect(Math.max(...staleSends)).toBeGreaterThan(fireTimes(OFTEN, T0, UNTIL)[runsBefore + 4] ?? UNTIL);
    expect(ranOnceEach(runtime.runs)).toEqual({
      times: fireTimes(OFTEN, T0, UNTIL).slice(0, runsBefore + 5),
      once: true,
    });
  });
});
