import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireSchedule } from '../../lib/cli/admin/wire';
import { type CliPlatform, startCliPlatform } from './support';

const fixtures = resolve(import.meta.dirname, 'fixtures/eventbridge');
let sundialPlatform: CliPlatform;
const cli = (args: readonly string[]) => sundialPlatform.cli(args, { cwd: fixtures });
const getSchedule = async (id: string) =>
  (await sundialPlatform.json<{ schedule: WireSchedule }>(['schedules', 'get', id])).schedule;

beforeAll(async () => {
  sundialPlatform = await startCliPlatform();
});

afterAll(async () => {
  await sundialPlatform?.stop();
});

describe('EventBridge Scheduler expressions, against the local platform', () => {
  it('adds a schedule with --schedule-expression and fires it at EventBridge’s times', async () => {
    const added = await cli([
      'schedules',
      'add',
      '--id',
      'weekdays-at-ten',
      '--task',
      'echo',
      '--schedule-expression',
      'cron(0 10 ? * MON-FRI *)',
      '--timezone',
      'Europe/Berlin',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^Added schedule 'weekdays-at-ten' \(echo\): next fire (Mon|Tue|Wed|Thu|Fri) \d{4}-\d\d-\d\d 10:00:00 CES?T/,
    );
    const schedule = await getSchedule('weekdays-at-ten');
    expect(schedule.trigger).toEqual({
      type: 'eventbridge',
      expression: 'cron(0 10 ? * MON-FRI *)',
      timezone: 'Europe/Berlin',
    });
  });

  it('refuses an invalid expression with the admin API’s message in EventBridge’s terms', async () => {
    const result = await cli([
      'schedules',
      'add',
      '--task',
      'echo',
      '--schedule-expression',
      'rate(1 minutes)',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "trigger.expression (--schedule-expression): 'rate(1 minutes)' is not a valid EventBridge rate() expression: write rate(1 minute)",
    );
  });

  it('imports get-schedule output: the schedule fires as it did on EventBridge', async () => {
    const result = await cli(['import', '--from-eventbridge', 'get-schedule.json', '--task', 'report']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.split('\n')[1]).toMatch(/^added +\[0\] +default\/weekday-report +weekday-report$/);
    const schedule = await getSchedule('weekday-report');
    expect(schedule).toMatchObject({
      task: 'report',
      trigger: {
        type: 'eventbridge',
        expression: 'cron(0 10 ? * MON-FRI *)',
        timezone: 'Europe/Berlin',
        start_at: '2026-01-01T00:00:00+01:00',
      },
      payload: { team: 'ops', recipients: ['ops@example.com'] },
      max_jitter_seconds: 900,
      paused: false,
    });
  });

  it('reports each item of a list: added, and failed with the admin API’s error; exit 1', async () => {
    const result = await cli([
      'import',
      '--from-eventbridge',
      'schedules.json',
      '--task',
      'echo',
      '--task-for',
      'arn:aws:lambda:eu-west-1:123456789012:function:send-report=report',
      '--json',
    ]);
    expect(result.code, result.stdout).toBe(1);
    const report = JSON.parse(result.stdout) as {
      counts: unknown;
      schedules: { status: string; problem?: string }[];
    };
    expect(report.counts, result.stdout).toEqual({ added: 2, failed: 1 });
    expect(report.schedules.map((item) => item.status)).toEqual(['added', 'added', 'failed']);
    expect(report.schedules[2]?.problem).toContain(
      "invalid_input: trigger.expression: 'cron(0 10 * * MON *)' is not a valid EventBridge cron() expression: day-of-month ('*') and day-of-week ('MON') cannot both be set; exactly one of them must be '?', e.g. cron(0 10 ? * MON *)",
    );
    expect(await getSchedule('billing:every-five-minutes')).toMatchObject({
      paused: true,
      trigger: { type: 'eventbridge', expression: 'rate(5 minutes)' },
      payload: { full: false },
    });
    expect(await getSchedule('launch-day')).toMatchObject({
      task: 'echo',
      payload: { input: 'launch now' },
      max_jitter_seconds: 3600,
      next_fire_time: '2030-05-01T13:30:00Z',
      next_fire_time_local: '2030-05-01T09:30:00-04:00',
    });
  });
});
