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
      description: 'Weekday report for the ops team',
      paused: false,
    });
  });

  it('checks a dry run as the import checks it: an id in use or a payload the task refuses fails', async () => {
    // Prepare: weekday-report was imported above
    const dryRun = (...args: string[]) => cli(['import', '--from-eventbridge', ...args, '--dry-run']);

    // Act
    const taken = await dryRun('get-schedule.json', '--task', 'report');
    const replace = await dryRun('get-schedule.json', '--task', 'report', '--conflict', 'replace');
    const refused = await dryRun('schedules.json', '--task', 'report', '--json');
    const list = await dryRun(
      'schedules.json',
      '--task',
      'echo',
      '--task-for',
      'arn:aws:lambda:eu-west-1:123456789012:function:send-report=report',
    );

    // Assess
    expect(taken.code).toBe(1);
    expect(taken.stdout.split('\n')[1]).toBe(
      "FAILED  [0]   default/weekday-report  weekday-report  conflicting_id: schedule 'weekday-report' already exists; use conflict_policy 'replace' or 'do_nothing' to change how conflicts are handled",
    );
    expect(replace.stdout.split('\n')[1]).toMatch(
      /^would replace +\[0\] +default\/weekday-report +weekday-report$/,
    );
    const report = JSON.parse(refused.stdout) as { schedules: { status: string; problem?: string }[] };
    expect(report.schedules.map((item) => `${item.status} ${item.problem ?? ''}`.trim())).toEqual([
      'failed invalid_input: payload.team: Invalid input: expected string, received undefined',
      'failed invalid_input: payload.team: Invalid input: expected string, received undefined',
      expect.stringMatching(
        /^failed invalid_input: trigger\.expression: 'cron\(0 10 \* \* MON \*\)' is not a valid/,
      ),
    ]);
    expect(list.code).toBe(1);
    expect(list.stdout.split('\n')).toEqual([
      'STATUS     ITEM  SCHEDULE                    ID                          OUTCOME',
      'would add  [0]   billing/every-five-minutes  billing:every-five-minutes',
      '    - id billing:every-five-minutes (group billing, name every-five-minutes)',
      '    - target arn:aws:lambda:eu-west-1:123456789012:function:sync-invoices → task echo',
      '    - State DISABLED → paused',
      'would add  [1]   default/launch-day          launch-day',
      '    - target arn:aws:sqs:eu-west-1:123456789012:launch → task echo',
      '    - Target.Input is not JSON: the payload is {"input": <its text>}',
      "    - flexible window of 240 minutes cut to Sundial's longest jitter, 60 minutes",
      '    - Target.SqsParameters not carried',
      '    - ActionAfterCompletion DELETE not carried: remove the schedule once it has finished',
      "FAILED     [2]   default/wrong-weekday       wrong-weekday               invalid_input: trigger.expression: 'cron(0 10 * * MON *)' is not a valid EventBridge cron() expression: day-of-month ('*') and day-of-week ('MON') cannot both be set; exactly one of them must be '?', e.g. cron(0 10 ? * MON *); payload.team: Invalid input: expected string, received undefined",
      '    - target arn:aws:lambda:eu-west-1:123456789012:function:send-report → task report',
      '',
      'Dry run, nothing was added: 3 EventBridge schedules: 2 would add, 1 failed.',
      '',
    ]);
    const listed = await sundialPlatform.json<{ schedules: WireSchedule[] }>(['schedules', 'list']);
    expect(listed.schedules.map((schedule) => schedule.id)).not.toContain('launch-day');
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
