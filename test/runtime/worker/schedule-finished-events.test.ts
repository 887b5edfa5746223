import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const tasks = { echo: { events: 'all' as const, handler: () => 'ok' } };

/** docs/events.md: `schedule.finished` when a schedule has no fire time left, on every path that finishes one. */
describe('schedule.finished', () => {
  it('is published when the tick dispatches the last fire of a max_runs schedule whose payload was updated meanwhile', async () => {
    const h = adminAndWorker(tasks);
    await h.admin({
      action: 'add_schedule',
      id: 'once',
      task: 'echo',
      max_runs: 1,
      trigger: { type: 'interval', seconds: 3600, start_at: new Date(T0 + 600 * SECOND).toISOString() },
    });
    h.clock.set(T0 + 570 * SECOND);
    // The owner changes the payload while the tick holds the lease (between its send and its release)
    const send = h.queue.send.bind(h.queue);
    let updated = false;
    h.queue.send = async (messages) => {
      const outcome = await send(messages);
      if (!updated) {
        updated = true;
        await h.admin({ action: 'update_schedule', id: 'once', payload: { v: 2 } });
      }
      return outcome;
    };

    await createTickHandler(() => h.deps)();

    expect(await h.store.getSchedule('once')).toMatchObject({ nextFireAt: null, runs: 1 });
    expect(h.publisher.events.filter((event) => event.type === 'schedule.finished')).toEqual([
      expect.objectContaining({ scheduleId: 'once', runs: 1, version: 2, nextFireAt: null }),
    ]);
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
