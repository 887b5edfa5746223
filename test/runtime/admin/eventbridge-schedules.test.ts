import { describe, expect, it } from 'vitest';
import { createHarness, errorOf } from './support/harness';

describe('add_schedule with an eventbridge trigger', () => {
  it('refuses an at() that has passed, saying so and pointing to add_job, and writes nothing', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({
        action: 'add_schedule',
        task: 'cleanup',
        trigger: { type: 'eventbridge', expression: 'at(2026-03-02T09:59:00)', timezone: 'Europe/Berlin' },
      }),
    );

    expect(error.message).toBe(
      'trigger: has no fire time at or after now (2026-03-02T09:00:00Z); its at(2026-03-02T09:59:00) has passed; to run a job once now, use add_job',
    );
    expect(h.writes).toEqual([]);
  });

  it('refuses a cron() whose years have passed, naming them', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({
        action: 'add_schedule',
        task: 'cleanup',
        trigger: { type: 'eventbridge', expression: 'cron(0 10 * * ? 2020-2025)' },
      }),
    );

    expect(error.message).toBe(
      'trigger: has no fire time at or after now (2026-03-02T09:00:00Z); the last year its expression names has passed',
    );
  });

  it('stores an at() in its zone and fires it once there', async () => {
    const h = createHarness();

    const answer = await h.call({
      action: 'add_schedule',
      id: 'launch',
      task: 'cleanup',
      trigger: { type: 'eventbridge', expression: 'at(2026-05-01T09:30:00)', timezone: 'Europe/Berlin' },
    });

    expect(answer).toMatchObject({
      ok: true,
      result: { schedule: { next_fire_time: '2026-05-01T07:30:00Z', timezone: 'Europe/Berlin' } },
    });
  });
});
