import { describe, expect, it } from 'vitest';
import { jobRequest } from '../support';
import { createHarness, errorOf, MINUTE, nightlyBerlin, T0 } from './support/harness';

interface Preview {
  trigger: unknown;
  timezone: string;
  from: string;
  fire_times: { utc: string; local: string }[];
}

describe('preview_schedule', () => {
  it('lists the next fire times of a trigger in UTC and in its timezone, across a DST change', async () => {
    const h = createHarness();

    const preview = await h.ok<Preview>({
      action: 'preview_schedule',
      trigger: { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
      from: '2026-03-28T00:00:00Z',
      count: 3,
    });

    expect(preview).toEqual({
      trigger: { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
      timezone: 'Europe/Berlin',
      from: '2026-03-28T00:00:00Z',
      fire_times: [
        { utc: '2026-03-28T01:30:00Z', local: '2026-03-28T02:30:00+01:00' },
        { utc: '2026-03-29T01:00:00Z', local: '2026-03-29T03:00:00+02:00' },
        { utc: '2026-03-30T00:30:00Z', local: '2026-03-30T02:30:00+02:00' },
      ],
    });
    expect(h.writes).toEqual([]);
  });

  it('previews 10 fire times from now by default, anchoring an interval at now as add_schedule would', async () => {
    const h = createHarness();

    const preview = await h.ok<Preview>({
      action: 'preview_schedule',
      trigger: { type: 'interval', minutes: 15 },
    });

    expect(preview.trigger).toEqual({ type: 'interval', minutes: 15, start_at: '2026-03-02T09:00:00Z' });
    expect(preview.fire_times).toHaveLength(10);
    expect(preview.fire_times[0]).toEqual({ utc: '2026-03-02T09:00:00Z', local: '2026-03-02T09:00:00Z' });
    expect(preview.fire_times[9]?.utc).toBe(
      new Date(T0 + 9 * 15 * MINUTE).toISOString().replace('.000Z', 'Z'),
    );
  });

  it('previews a stored schedule by id, and says schedule_not_found for an unknown one', async () => {
    const h = createHarness();
    await h.ok({ action: 'add_schedule', id: 'nightly', task: 'cleanup', trigger: nightlyBerlin });

    const preview = await h.ok<Preview>({ action: 'preview_schedule', id: 'nightly', count: 2 });
    const missing = errorOf(await h.call({ action: 'preview_schedule', id: 'nope' }));

    expect(preview.fire_times.map((fire) => fire.local)).toEqual([
      '2026-03-03T03:00:00+01:00',
      '2026-03-04T03:00:00+01:00',
    ]);
    expect(missing.code).toBe('schedule_not_found');
  });

  it('answers an empty list for a trigger with no fire time left', async () => {
    const h = createHarness();

    const preview = await h.ok<Preview>({
      action: 'preview_schedule',
      trigger: { type: 'date', run_at: '2020-01-01T00:00:00Z' },
    });

    expect(preview.fire_times).toEqual([]);
  });

  it('reports trigger problems with their paths', async () => {
    const h = createHarness();

    const error = errorOf(
      await h.call({
        action: 'preview_schedule',
        trigger: { type: 'cron', expression: '0 9 * * *', timezone: 'Mars/Olympus' },
      }),
    );

    expect(error.message).toBe(
      "trigger.timezone: unknown time zone 'Mars/Olympus'; use an IANA name such as 'Europe/Berlin', 'America/New_York' or 'UTC'",
    );
  });
});

describe('list_tasks', () => {
  it('lists each task with its options, its running count from the store’s counters, its waiting jobs and pause', async () => {
    const h = createHarness();
    h.store.setRunningCount('cleanup', 2);
    await h.store.joinLine({ message: { job: jobRequest('w1', { task: 'cleanup' }), attempt: 1 }, now: T0 });
    await h.store.joinLine({ message: { job: jobRequest('w2', { task: 'cleanup' }), attempt: 1 }, now: T0 });
    await h.store.setTaskPaused('send-report', true);

    const result = await h.ok({ action: 'list_tasks' });

    expect(result).toEqual({
      tasks: [
        {
          id: 'cleanup',
          max_running_jobs: 2,
          rate_limit: null,
          misfire_grace_seconds: 120,
          timeout_seconds: 60,
          retry: { max_attempts: 5, backoff_seconds: 2, max_backoff_seconds: 300 },
          result_ttl_seconds: 604800,
          events: 'all',
          has_payload_schema: false,
          running: 2,
          waiting: 2,
          paused: false,
        },
        {
          id: 'send-report',
          max_running_jobs: null,
          rate_limit: null,
          misfire_grace_seconds: null,
          timeout_seconds: 60,
          retry: { max_attempts: 3, backoff_seconds: 2, max_backoff_seconds: 300 },
          result_ttl_seconds: 3600,
          events: 'failures',
          has_payload_schema: true,
          running: 0,
          waiting: 0,
          paused: true,
        },
      ],
    });
  });
});
