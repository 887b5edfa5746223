import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../lib/core/errors';
import { parseTrigger } from '../../../lib/core/triggers';

function problems(input: unknown, path?: string): string[] {
  try {
    parseTrigger(input, path);
  } catch (error) {
    if (error instanceof ValidationError)
      return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseTrigger accepts', () => {
  it.each([
    {
      type: 'cron',
      expression: '0 9 * * MON-FRI',
      timezone: 'Europe/Berlin',
      start_at: '2026-01-01T00:00:00Z',
    },
    { type: 'cron', expression: '0 9 * * MON-FRI,1 ' },
    { type: 'cron', expression: `${'0'.repeat(503)}5 * * * *` },
    { type: 'interval', minutes: 5 },
    { type: 'calendar_interval', months: 1, start_date: '2026-01-31', hour: 9, timezone: 'America/New_York' },
    { type: 'date', run_at: '2026-05-01T09:30:00.250+02:00' },
    { type: 'and', triggers: [{ type: 'interval', hours: 1 }], threshold_seconds: 0.5, max_iterations: 100 },
    {
      type: 'or',
      triggers: [
        { type: 'cron', expression: '0 0 L * *' },
        { type: 'cron', expression: '0 0 * * 5#3' },
      ],
    },
  ])('$type', (input) => {
    expect(parseTrigger(input)).toEqual(input);
  });
});

describe('parseTrigger rejects', () => {
  it('an invalid cron expression, saying why', () => {
    expect(problems({ type: 'cron', expression: '*/0 * * * *' })).toEqual([
      "trigger.expression: invalid cron expression '*/0 * * * *': step must be at least 1",
    ]);
  });

  it.each([
    [
      '* * * * * * *',
      'it has 7 fields, but a year field is not supported; expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second minute hour day-of-month month day-of-week)',
    ],
    ['60 * * * *', '60 is not a valid minute (allowed 0-59)'],
    [
      '0 0 30 2 *',
      'it never fires: none of its months has that day of the month (February has at most 29 days; April, June, September and November have 30)',
    ],
    [
      '0 0 * * 1#6',
      "'1#6' is not allowed: write <weekday>#<1-5> in the day-of-week field (5#3 = third Friday)",
    ],
    [
      '0 0 ? * MON',
      "it looks like an EventBridge Scheduler cron expression: write it as 'cron(0 0 ? * MON *)' in a trigger of type 'eventbridge' (docs/triggers.md) (as a Sundial cron expression: '?' is not supported (day-of-month field); use '*')",
    ],
    ['H * * * *', "'H' (hashed values) is not supported (minute field)"],
    ['0 0 15W * *', "'W' (nearest weekday) is not supported (day-of-month field)"],
    [
      '0 0 L-2 * *',
      "'L-2' is not allowed: 'L' may only stand alone in the day-of-month field (last day of the month) or follow one weekday in the day-of-week field (5L = last Friday)",
    ],
    [
      '0 17-9 * * *',
      'range 17-9 must go from low to high (hour field); wrap-around ranges are not supported',
    ],
    ['0 0 * FOO *', "'FOO' is not a valid month: use 1-12 or JAN-DEC"],
    [
      '@weekdays',
      "unknown shortcut '@weekdays'; allowed: @yearly, @annually, @monthly, @weekly, @daily, @hourly",
    ],
    [
      '',
      'it has 0 fields; expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second minute hour day-of-month month day-of-week)',
    ],
  ])('cron %j', (expression, problem) => {
    expect(problems({ type: 'cron', expression })).toEqual([
      `trigger.expression: invalid cron expression '${expression}': ${problem}`,
    ]);
  });

  it('a cron expression longer than 512 characters, before reading it, without echoing it', () => {
    const expression = `${'0'.repeat(600)}5 * * * *`;
    expect(problems({ type: 'cron', expression })).toEqual([
      'trigger.expression: must be at most 512 characters (it has 609); a cron expression needs far fewer',
    ]);
  });

  it('a timestamp without an offset, as ambiguous', () => {
    expect(problems({ type: 'date', run_at: '2026-03-08T02:30:00' })).toEqual([
      "trigger.run_at: '2026-03-08T02:30:00' has no UTC offset, so it is ambiguous: add 'Z' for UTC or an offset such as '+01:00'",
    ]);
  });

  it('an unknown type, listing the known ones', () => {
    expect(problems({ type: 'weekly' })).toEqual([
      "trigger.type: must be one of cron, interval, calendar_interval, date, and, or, eventbridge (got 'weekly')",
    ]);
    expect(problems({})).toEqual([
      'trigger.type: is required: must be one of cron, interval, calendar_interval, date, and, or, eventbridge',
    ]);
  });

  it('unknown fields, naming each and the allowed ones', () => {
    expect(problems({ type: 'interval', minutes: 5, every: 3 })).toEqual([
      'trigger.every: is not a known field; allowed fields: type, weeks, days, hours, minutes, seconds, start_at, end_at',
    ]);
  });

  it('every problem at once, with nested paths', () => {
    expect(
      problems(
        {
          type: 'or',
          triggers: [
            { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Berlim', end_at: '2026-01-01' },
            { type: 'interval', seconds: 1.5, minutes: -1 },
            { type: 'calendar_interval', start_date: '2026-02-30' },
          ],
        },
        'schedule.trigger',
      ),
    ).toEqual([
      "schedule.trigger.triggers[0].timezone: unknown time zone 'Europe/Berlim'; use an IANA name such as 'Europe/Berlin', 'America/New_York' or 'UTC'",
      "schedule.trigger.triggers[0].end_at: '2026-01-01' is not an ISO-8601 date-time; write e.g. '2026-03-29T02:30:00Z' or '2026-03-29T02:30:00+01:00'",
      'schedule.trigger.triggers[1].minutes: must be at least 0',
      'schedule.trigger.triggers[1].seconds: must be a whole number (got 1.5)',
      "schedule.trigger.triggers[2].start_date: '2026-02-30' is not a valid date; write YYYY-MM-DD, e.g. '2026-01-31'",
      'schedule.trigger.triggers[2]: at least one of years, months, weeks, days must be greater than 0',
    ]);
  });

  it.each([
    [
      { type: 'interval' },
      'trigger: at least one of weeks, days, hours, minutes, seconds must be greater than 0',
    ],
    [{ type: 'interval', weeks: 6000 }, 'trigger: the interval must be at most 100 years'],
    [
      {
        type: 'cron',
        expression: '0 * * * *',
        start_at: '2026-02-01T00:00:00Z',
        end_at: '2026-01-01T00:00:00Z',
      },
      'trigger.end_at: must not be before start_at (2026-01-01T00:00:00Z is before 2026-02-01T00:00:00Z): the trigger could never fire',
    ],
    [
      {
        type: 'interval',
        hours: 1,
        start_at: '2026-05-01T10:00:00Z',
        end_at: '2026-05-01T11:59:59.999+02:00',
      },
      'trigger.end_at: must not be before start_at (2026-05-01T09:59:59.999Z is before 2026-05-01T10:00:00Z): the trigger could never fire',
    ],
    [
      { type: 'calendar_interval', days: 1, start_date: '2026-02-01', end_date: '2026-01-01' },
      'trigger.end_date: must not be before start_date (2026-01-01 is before 2026-02-01): the trigger could never fire',
    ],
    [
      { type: 'calendar_interval', days: 1, start_date: '2026-02-01', hour: 24 },
      'trigger.hour: must be at most 23',
    ],
    [{ type: 'and', triggers: [] }, 'trigger.triggers: must list at least 1 trigger'],
    [
      { type: 'and', triggers: [{ type: 'interval', hours: 1 }], threshold_seconds: 86_401 },
      'trigger.threshold_seconds: must be at most 86400',
    ],
    [{ type: 'date' }, 'trigger.run_at: is required'],
    ['0 * * * *', "trigger: must be an object (got '0 * * * *')"],
  ])('%j', (input, problem) => {
    expect(problems(input)).toEqual([problem]);
  });

  it('and/or nested deeper than 8 levels', () => {
    let trigger: unknown = { type: 'interval', seconds: 1 };
    for (let level = 0; level < 10; level++) trigger = { type: 'or', triggers: [trigger] };
    expect(problems(trigger)[0]).toMatch(
      /^trigger(\.triggers\[0\]){8}: and\/or triggers may nest at most 8 levels deep$/,
    );
  });

  it('larger than 32 KB as JSON, though within the children and nesting limits', () => {
    const date = (n: number) => ({
      type: 'date',
      run_at: new Date(Date.UTC(2027, 0, 1, 0, 0, n)).toISOString(),
    });
    const or = (children: unknown[]) => ({ type: 'or', triggers: children });
    const huge = or(
      Array.from({ length: 100 }, (_, i) => or(Array.from({ length: 100 }, (_, j) => date(i * 100 + j)))),
    );
    expect(problems(huge)).toEqual(['trigger: must be at most 32 KB as JSON (this one is 511 KB)']);
    // 100 children of the longest cron expressions still fit
    const longCron = `${Array.from({ length: 60 }, (_, i) => i).join(',')} * * * *`;
    expect(() =>
      parseTrigger(or(Array.from({ length: 100 }, () => ({ type: 'cron', expression: longCron })))),
    ).not.toThrow();
  });

  it('as a ValidationError with code invalid_input', () => {
    expect(() => parseTrigger({ type: 'interval' })).toThrow(
      expect.objectContaining({ code: 'invalid_input', name: 'ValidationError' }),
    );
  });
});
