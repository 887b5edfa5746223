import { describe, expect, it, vi } from 'vitest';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const tasks = { echo: { events: 'all' as const, handler: () => 'ok' } };

/** docs/events.md: `schedule.finished` when a schedule has no fire time left, on every path that finishes one. */
describe('schedule.finished', () => {
  it('is published once when the tick sends the last fire of a max_runs schedule updated meanwhile', async () => {
    // Prepare: its one fire is 30 minutes ahead: the tick reads its note 14 minutes before it. Between
    // the tick's finish of the schedule and its send, the owner changes the payload
    const h = adminAndWorker(tasks);
    await h.admin({
      action: 'add_schedule',
      id: 'once',
      task: 'echo',
      max_runs: 1,
      trigger: { type: 'interval', seconds: 3600, start_at: new Date(T0 + 1_800 * SECOND).toISOString() },
    });
    h.clock.set(T0 + 960 * SECOND);
    const finish = h.store.finishSchedule.bind(h.store);
    vi.spyOn(h.store, 'finishSchedule').mockImplementationOnce(async (input) => {
      const outcome = await finish(input);
      await h.admin({ action: 'update_schedule', id: 'once', payload: { v: 2 } });
      return outcome;
    });

    // Act
    await h.tick();
    await h.deliverDue(1_800);

    // Assess: the update found it finished already (no second event); the fire ran as updated
    expect(h.publisher.events.filter((event) => event.type === 'schedule.finished')).toEqual([
      expect.objectContaining({ scheduleId: 'once', runs: 1, nextFireAt: null }),
    ]);
    expect(await h.store.getJob(`once@${T0 + 1_800 * SECOND}`, h.clock.now())).toMatchObject({
      status: 'success',
      payload: { v: 2 },
    });
  });

  it('is published once when resume_schedule finds the trigger ended while it was paused', async () => {
    const h = adminAndWorker(tasks);
    await h.admin({
      action: 'add_schedule',
      id: 'd',
      task: 'echo',
      trigger: { type: 'date', run_at: new Date(T0 + 3600 * SECOND).toISOString() },
    });
    await h.admin({ action: 'pause_schedule', id: 'd' });
    h.clock.set(T0 + 7200 * SECOND);

    await h.admin({ action: 'resume_schedule', id: 'd' });

    expect(
      h.publisher.events.map((event) => event.type).filter((type) => type.startsWith('schedule.')),
    ).toEqual([
      'schedule.added',
      'schedule.paused',
      'schedule.resumed',
      'schedule.finished',
      'schedule.removed',
    ]);
  });
});
