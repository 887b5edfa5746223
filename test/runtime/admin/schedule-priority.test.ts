import { describe, expect, it } from 'vitest';
import type { WireJob, WireSchedule } from '../../../lib/core/admin-contract';
import { createHarness, errorOf } from './support/harness';

const hourly = { type: 'cron', expression: '0 * * * *' };
const every30s = { type: 'interval', seconds: 30 };

describe('schedule priority', () => {
  it('keeps a critical priority on the schedule and shows it in add, get and list answers', async () => {
    const h = createHarness();

    const added = await h.ok<{ schedule: WireSchedule }>({
      action: 'add_schedule',
      id: 'urgent',
      task: 'cleanup',
      trigger: hourly,
      priority: 'critical',
    });
    await h.ok({ action: 'add_schedule', id: 'usual', task: 'cleanup', trigger: hourly, priority: 'normal' });
    const got = await h.ok<{ schedule: WireSchedule }>({ action: 'get_schedule', id: 'urgent' });
    const listed = await h.ok<{ schedules: WireSchedule[] }>({ action: 'list_schedules' });

    expect(added.schedule.priority).toBe('critical');
    expect(got.schedule.priority).toBe('critical');
    expect(listed.schedules.map((schedule) => [schedule.id, schedule.priority])).toEqual([
      ['urgent', 'critical'],
      ['usual', undefined],
    ]);
    expect(await h.store.getSchedule('usual')).not.toHaveProperty('priority');
  });

  it('gives every job of a critical schedule its priority: the fires it sends and run_schedule_now', async () => {
    const h = createHarness();

    await h.ok({
      action: 'add_schedule',
      id: 'beat',
      task: 'cleanup',
      trigger: every30s,
      priority: 'critical',
    });
    const runNow = await h.ok<{ job: WireJob }>({ action: 'run_schedule_now', id: 'beat' });

    expect(h.queue.messages.length).toBeGreaterThan(1);
    expect(h.queue.messages.map((message) => message.job.priority)).toEqual(
      h.queue.messages.map(() => 'critical'),
    );
    expect(runNow.job.priority).toBe('critical');
  });

  it('changes it with update_schedule; null and normal clear it, and the jobs sent next are normal', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'beat', task: 'cleanup', trigger: hourly });

    const raised = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'beat',
      priority: 'critical',
    });
    const criticalRun = await h.ok<{ job: WireJob }>({ action: 'run_schedule_now', id: 'beat' });
    const cleared = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'beat',
      priority: null,
    });
    await h.ok({ action: 'update_schedule', id: 'beat', priority: 'critical' });
    const lowered = await h.ok<{ schedule: WireSchedule }>({
      action: 'update_schedule',
      id: 'beat',
      priority: 'normal',
    });
    const normalRun = await h.ok<{ job: WireJob }>({ action: 'run_schedule_now', id: 'beat' });

    expect(raised.schedule.priority).toBe('critical');
    expect(criticalRun.job.priority).toBe('critical');
    expect(cleared.schedule).not.toHaveProperty('priority');
    expect(lowered.schedule).not.toHaveProperty('priority');
    expect(await h.store.getSchedule('beat')).not.toHaveProperty('priority');
    expect(normalRun.job).not.toHaveProperty('priority');
  });

  it('refuses an unknown priority on add and update, naming the field and the levels, and writes nothing', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'beat', task: 'cleanup', trigger: hourly });
    const writesBefore = h.writes.length;

    const onAdd = errorOf(
      await h.call({ action: 'add_schedule', id: 'x', task: 'cleanup', trigger: hourly, priority: 'high' }),
    );
    const onUpdate = errorOf(await h.call({ action: 'update_schedule', id: 'beat', priority: 3 }));
    const nullOnAdd = errorOf(
      await h.call({ action: 'add_schedule', id: 'y', task: 'cleanup', trigger: hourly, priority: null }),
    );

    for (const error of [onAdd, onUpdate, nullOnAdd]) {
      expect(error).toMatchObject({
        code: 'invalid_input',
        details: [{ path: 'priority', message: expect.stringMatching(/critical, normal/) }],
      });
    }
    expect(h.writes.length).toBe(writesBefore);
    expect(await h.store.getSchedule('x')).toBeUndefined();
  });
});
