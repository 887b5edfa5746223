import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertEventBridgeSchedule } from '../../lib/cli/commands/import/eventbridge/convert';
import { ManualClock } from '../../lib/core/clock';
import { sundial } from './run-cli';

const cwd = resolve(import.meta.dirname, 'fixtures/eventbridge');
const clock = new ManualClock(Date.parse('2026-03-02T09:00:00Z'));
const sundialImport = (args: readonly string[]) => sundial(['import', ...args], { cwd, clock });
const noMapping = new Map<string, string>();

describe('EventBridge Scheduler schedules as add_schedule fields', () => {
  it('carries expression, zone, start, state, flexible window, input and description; names what it cannot carry', () => {
    const conversion = convertEventBridgeSchedule(
      {
        Name: 'weekday-report',
        GroupName: 'reports',
        ScheduleExpression: 'cron(0 10 ? * MON-FRI *)',
        ScheduleExpressionTimezone: 'Europe/Berlin',
        StartDate: '2026-01-01T00:00:00+01:00',
        EndDate: 1798761600,
        State: 'DISABLED',
        FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 15 },
        ActionAfterCompletion: 'DELETE',
        Description: 'Weekday report for the ops team',
        Target: {
          Arn: 'arn:aws:lambda:eu-west-1:123456789012:function:send-report',
          Input: '{"team": "ops"}',
          RetryPolicy: { MaximumEventAgeInSeconds: 86400, MaximumRetryAttempts: 185 },
          DeadLetterConfig: { Arn: 'arn:aws:sqs:eu-west-1:123456789012:dlq' },
        },
      },
      0,
      { task: 'send-report', taskFor: noMapping },
    );
    expect(conversion).toEqual({
      index: 0,
      source: 'reports/weekday-report',
      schedule: {
        id: 'reports:weekday-report',
        task: 'send-report',
        trigger: {
          type: 'eventbridge',
          expression: 'cron(0 10 ? * MON-FRI *)',
          timezone: 'Europe/Berlin',
          start_at: '2026-01-01T00:00:00+01:00',
          end_at: '2027-01-01T00:00:00.000Z',
        },
        payload: { team: 'ops' },
        max_jitter_seconds: 900,
        description: 'Weekday report for the ops team',
        paused: true,
      },
      notes: [
        'id reports:weekday-report (group reports, name weekday-report)',
        'target arn:aws:lambda:eu-west-1:123456789012:function:send-report → task send-report',
        'flexible window of 15 minutes → max_jitter_seconds 900',
        'State DISABLED → paused',
        "RetryPolicy not carried (MaximumRetryAttempts 185, MaximumEventAgeInSeconds 86400): the task's retry settings apply",
        'Target.DeadLetterConfig not carried',
        'ActionAfterCompletion DELETE not carried: remove the schedule once it has finished',
      ],
    });
  });

  it('picks the task by target ARN with --task-for, else --task; skips a target with neither', () => {
    const item = (arn: string) => ({ Name: 'n', ScheduleExpression: 'rate(1 hour)', Target: { Arn: arn } });
    const choice = { taskFor: new Map([['arn:a', 'task-a']]) };
    expect(convertEventBridgeSchedule(item('arn:a'), 0, choice).schedule?.task).toBe('task-a');
    expect(convertEventBridgeSchedule(item('arn:b'), 1, choice)).toEqual({
      index: 1,
      source: 'default/n',
      skipped: "no task for its target arn:b: give --task TASK or --task-for 'arn:b=TASK'",
      notes: [],
    });
    expect(convertEventBridgeSchedule(item('arn:b'), 1, { ...choice, task: 'fallback' }).schedule?.task).toBe(
      'fallback',
    );
  });

  it('replaces what Sundial ids do not allow', () => {
    const conversion = convertEventBridgeSchedule(
      { Name: 'nightly report', ScheduleExpression: 'rate(1 day)' },
      0,
      { task: 't', taskFor: noMapping },
    );
    expect(conversion.schedule?.id).toBe('nightly-report');
    expect(conversion.notes[0]).toBe('id nightly-report (group default, name nightly report)');
  });
});

describe('sundial import --from-eventbridge, before any request', () => {
  it('says list-schedules items need get-schedule', async () => {
    const result = await sundialImport([
      '--from-eventbridge',
      'list-schedules.json',
      '--task',
      'report',
      '--dry-run',
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      dry_run: true,
      counts: { skipped: 1 },
      schedules: [
        {
          index: 0,
          source: 'default/weekday-report',
          id: null,
          status: 'skipped',
          problem:
            'has no ScheduleExpression (list-schedules does not return it): export it with `aws scheduler get-schedule --name weekday-report --group-name default` and import that',
          notes: [],
        },
      ],
    });
  });

  it('needs a task, and the EventBridge flags need --from-eventbridge', async () => {
    const noTask = await sundialImport(['--from-eventbridge', 'get-schedule.json']);
    expect(noTask.code).toBe(2);
    expect(noTask.stderr).toContain(
      'error: --from-eventbridge: say which task runs the schedules: --task TASK, or --task-for <target ARN>=TASK per target',
    );
    const stray = await sundialImport(['get-schedule.json', '--task', 'report']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('error: --task: only apply with --from-eventbridge');
  });

  it('refuses a file that is not EventBridge output', async () => {
    const result = await sundialImport(['--from-eventbridge', 'not-eventbridge.json', '--task', 'r']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected the JSON of `aws scheduler get-schedule`');
  });
});
