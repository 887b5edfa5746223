import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../lib/core/json';
import type { Schedule } from '../../../lib/core/model/schedule';
import { createAdminHandler } from '../../../lib/runtime/handlers/admin';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { testTasks } from '../admin/support/harness';
import { SECOND, scheduleDefinition, sqsRecord, T0 } from '../support';
import { workerHarness } from '../worker/harness';
import { fireTimes, interval, MINUTE } from './notes-harness';

const OFTEN = interval(10);
const UNTIL = T0 + 15 * MINUTE;

interface Run {
  fireTime: number;
  payload: JsonValue;
}

/**
 * A schedule `raced` every 10 s from T0 on due notes, run by a tick a minute and a worker that gets
 * each message once its run time has come. At the first tick from `changeAt` on, the admin request is
 * written after the tick read the schedule's item for its note and before it sends the note's fires and
 * writes its successor (ADR 0007, "Admin writes of a note-indexed schedule"): the tick goes on with the
 * version it read. A `request` function gets the schedule's `runs` as the admin API reads it just before.
 */
async function raceChange(
  request: Record<string, unknown> | ((runs: number) => Record<string, unknown>),
  changeAt: number,
) {
  const runs = new Map<number, Run[]>();
  const worker = workerHarness(
    {
      echo: {
        handler: (payload, { fireTime }) => {
          const time = fireTime?.getTime() ?? 0;
          runs.set(time, [...(runs.get(time) ?? []), { fireTime: time, payload: payload as JsonValue }]);
        },
      },
    },
    { dueNotes: true },
  );
  worker.clock.set(T0 - 2 * MINUTE);
  await worker.store.addSchedule({
    schedule: scheduleDefinition('raced', { trigger: OFTEN, coalesce: 'all', payload: { n: 1 } }),
    nextFireAt: T0,
    conflictPolicy: 'exception',
    now: worker.clock.now(),
  });
  const admin = createAdminHandler(() => worker.deps, testTasks({ echo: { handler: () => undefined } }));
  let changedAt: number | undefined;
  let runsBefore = 0;
  const readSchedules = worker.store.readSchedules.bind(worker.store);
  worker.store.readSchedules = async (ids: readonly string[]): Promise<Map<string, Schedule>> => {
    const items = await readSchedules(ids);
    if (changedAt === undefined && worker.clock.now() >= changeAt && items.get('raced')?.onNotes) {
      const read = await admin({ action: 'get_schedule', id: 'raced' });
      runsBefore = (read as { result: { schedule: { runs: number } } }).result.schedule.runs;
      const change = typeof request === 'function' ? request(runsBefore) : request;
      const answer = await admin({ id: 'raced', ...change }, { awsRequestId: 'race' });
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
      changedAt = worker.clock.now();
    }
    return items;
  };
  const tick = createTickHandler(() => worker.deps);
  const waiting: ReturnType<typeof worker.queue.drain> = [];
  /** Fire times the tick sent under the schedule's first version once the change had been written. */
  const staleSends: number[] = [];
  /** The same, by the ticks after that one: the old version's note chain must have ended. */
  const laterStaleSends: number[] = [];
  for (let at = T0 - 2 * MINUTE; at <= UNTIL; at += MINUTE) {
    worker.clock.set(at);
    await tick();
    const sent = worker.queue.drain();
    for (const message of sent) {
      if (changedAt === undefined || message.revision?.version !== 1) continue;
      (changedAt === at ? staleSends : laterStaleSends).push(message.job.fireTime ?? 0);
    }
    waiting.push(...sent);
    const due = waiting.filter((message) => message.job.runAt <= at);
    waiting.splice(0, waiting.length, ...waiting.filter((message) => message.job.runAt > at));
    for (const message of due) await worker.deliver([sqsRecord(message)]);
  }
  if (changedAt === undefined) throw new Error('the change never raced a tick');
  // The race is real: the tick sent fires of the old version after the change was written
  expect(staleSends.length).toBeGreaterThan(0);
  expect(laterStaleSends).toEqual([]);
  return { runs, changedAt, runsBefore, staleSends, worker };
}

const ranTimes = (runs: Map<number, Run[]>) => [...runs.keys()].sort((a, b) => a - b);

describe('due notes: an admin change written while a tick sends from the note it read (ADR 0007)', () => {
  it('pause: no fire starts after the pause, though the tick sent some under the old version', async () => {
    const { runs, changedAt, worker } = await raceChange({ action: 'pause_schedule' }, T0 + 5 * MINUTE);

    // Fires are delivered once a minute, after the tick: those due since the last delivery never started
    const lastDelivery = changedAt - MINUTE;
    expect(ranTimes(runs)).toEqual(fireTimes(OFTEN, T0, lastDelivery));
    expect([...runs.values()].every((list) => list.length === 1)).toBe(true);
    const cancelled = await worker.store.getJob(`raced@${lastDelivery + 10 * SECOND}`, worker.clock.now());
    expect(cancelled).toMatchObject({ status: 'cancelled' });
  });

  it('update: every fire runs once, and each one after the update with its new payload', async () => {
    const { runs, changedAt, worker } = await raceChange(
      { action: 'update_schedule', payload: { n: 2 } },
      T0 + 5 * MINUTE,
    );

    expect(ranTimes(runs)).toEqual(fireTimes(OFTEN, T0, UNTIL));
    expect([...runs.values()].every((list) => list.length === 1)).toBe(true);
    const after = [...runs.values()].flat().filter((run) => run.fireTime > changedAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((run) => JSON.stringify(run.payload) === JSON.stringify({ n: 2 }))).toBe(true);
    expect(await worker.store.getSchedule('raced')).toMatchObject({ version: 2 });
  });

  it('update with max_runs: the runs stop at the cap, counting the fires dispatched before the change', async () => {
    const { runs, runsBefore, staleSends } = await raceChange(
      // Kept once finished: no removal of the schedule stops the fires beyond the cap in its place
      (runsSoFar) => ({ action: 'update_schedule', max_runs: runsSoFar + 5, keep_finished: true }),
      T0 + 5 * MINUTE,
    );

    expect(runsBefore).toBeGreaterThan(20);
    expect(Math.max(...staleSends)).toBeGreaterThan(fireTimes(OFTEN, T0, UNTIL)[runsBefore + 4] ?? UNTIL);
    expect(ranTimes(runs)).toEqual(fireTimes(OFTEN, T0, UNTIL).slice(0, runsBefore + 5));
    expect([...runs.values()].every((list) => list.length === 1)).toBe(true);
  });

  it('remove: nothing runs after the removal', async () => {
    const { runs, changedAt, worker } = await raceChange({ action: 'remove_schedule' }, T0 + 5 * MINUTE);

    expect(ranTimes(runs).filter((time) => time > changedAt)).toEqual([]);
    expect(await worker.store.getSchedule('raced')).toBeUndefined();
    expect(changedAt).toBeGreaterThanOrEqual(T0 + 5 * MINUTE - SECOND);
  });
});
