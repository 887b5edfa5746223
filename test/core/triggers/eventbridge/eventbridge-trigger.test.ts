import { describe, expect, it } from 'vitest';
import { describeTrigger } from '../../../../lib/core/format/triggers';
import { anchorIntervals, parseTrigger, triggerTimezone } from '../../../../lib/core/triggers';
import { localFireTimes, utcFireTimes } from '../fire-times';

const eventbridge = (expression: string, extra: Record<string, unknown> = {}) => ({
  type: 'eventbridge',
  expression,
  ...extra,
});

function problemOf(trigger: unknown): string {
  try {
    parseTrigger(trigger);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the trigger was accepted');
}

describe('eventbridge trigger: cron(…) fields', () => {
  it('reads day-of-week 1-7 as SUN-SAT, not 0-6', () => {
    expect(utcFireTimes(eventbridge('cron(0 10 ? * 2 *)'), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-05T10:00:00.000Z',
      '2026-01-12T10:00:00.000Z',
    ]);
    expect(utcFireTimes(eventbridge('cron(0 10 ? * 1,7 *)'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-03T10:00:00.000Z',
      '2026-01-04T10:00:00.000Z',
      '2026-01-10T10:00:00.000Z',
    ]);
  });

  it('fires on weekdays with MON-FRI and on the 1st with day-of-week ?', () => {
    expect(utcFireTimes(eventbridge('cron(15 8 ? * MON-FRI *)'), '2026-01-02T09:00:00Z', 2)).toEqual([
      '2026-01-05T08:15:00.000Z',
      '2026-01-06T08:15:00.000Z',
    ]);
    expect(utcFireTimes(eventbridge('cron(0 0 1 * ? *)'), '2026-01-02T00:00:00Z', 2)).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
  });

  it('reads L, LW, W and # as EventBridge does', () => {
    const from = '2026-01-01T00:00:00Z';
    // Last day of the month.
    expect(utcFireTimes(eventbridge('cron(0 10 L * ? *)'), from, 2)).toEqual([
      '2026-01-31T10:00:00.000Z',
      '2026-02-28T10:00:00.000Z',
    ]);
    // Last weekday: Jan 31 2026 is a Saturday, May 31 a Sunday.
    expect(utcFireTimes(eventbridge('cron(0 10 LW 1,5 ? *)'), from, 2)).toEqual([
      '2026-01-30T10:00:00.000Z',
      '2026-05-29T10:00:00.000Z',
    ]);
    // Nearest weekday: Feb 15 2026 is a Sunday (→ Mon 16), Aug 15 a Saturday (→ Fri 14).
    expect(utcFireTimes(eventbridge('cron(0 10 15W 2,8 ? *)'), from, 2)).toEqual([
      '2026-02-16T10:00:00.000Z',
      '2026-08-14T10:00:00.000Z',
    ]);
    // 1W never leaves the month: Aug 1 2026 is a Saturday, so Monday Aug 3.
    expect(utcFireTimes(eventbridge('cron(0 10 1W 8 ? *)'), from, 1)).toEqual(['2026-08-03T10:00:00.000Z']);
    // 31W in a month without a 31st does not fire that month.
    expect(utcFireTimes(eventbridge('cron(0 10 31W 4,5 ? *)'), from, 1)).toEqual([
      '2026-05-29T10:00:00.000Z',
    ]);
    // 3#2: the second Tuesday; 5L: the last Thursday; L alone in day-of-week: Saturday.
    expect(utcFireTimes(eventbridge('cron(0 10 ? * 3#2 *)'), from, 2)).toEqual([
      '2026-01-13T10:00:00.000Z',
      '2026-02-10T10:00:00.000Z',
    ]);
    expect(utcFireTimes(eventbridge('cron(0 10 ? * 5L *)'), from, 2)).toEqual([
      '2026-01-29T10:00:00.000Z',
      '2026-02-26T10:00:00.000Z',
    ]);
    expect(utcFireTimes(eventbridge('cron(0 10 ? * L *)'), from, 1)).toEqual(['2026-01-03T10:00:00.000Z']);
  });

  it('honours the year field and finishes after its last year', () => {
    expect(utcFireTimes(eventbridge('cron(0 12 1 1 ? 2027-2028)'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-01T12:00:00.000Z',
      '2028-01-01T12:00:00.000Z',
    ]);
    expect(utcFireTimes(eventbridge('cron(0 0 1 1 ? 2030/50)'), '2026-01-01T00:00:00Z', 5)).toEqual([
      '2030-01-01T00:00:00.000Z',
      '2080-01-01T00:00:00.000Z',
      '2130-01-01T00:00:00.000Z',
      '2180-01-01T00:00:00.000Z',
    ]);
  });

  it('reads steps from their start to the end of the field: 0/15, 5/20, */6', () => {
    expect(utcFireTimes(eventbridge('cron(5/20 */6 * * ? *)'), '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:25:00.000Z',
      '2026-01-01T00:45:00.000Z',
      '2026-01-01T06:05:00.000Z',
    ]);
  });

  it('is shown readably and in its zone', () => {
    const trigger = parseTrigger(eventbridge('cron(0 10 ? * MON-FRI *)', { timezone: 'Europe/Berlin' }));
    expect(describeTrigger(trigger)).toBe('eventbridge cron(0 10 ? * MON-FRI *)');
    expect(triggerTimezone(trigger)).toBe('Europe/Berlin');
  });
});

describe('eventbridge trigger: messages in the dialect’s own terms', () => {
  const cases: [string, string][] = [
    [
      'cron(0 10 * * MON *)',
      "trigger.expression: 'cron(0 10 * * MON *)' is not a valid EventBridge cron() expression: day-of-month ('*') and day-of-week ('MON') cannot both be set; exactly one of them must be '?', e.g. cron(0 10 ? * MON *)",
    ],
    ['cron(0 10 ? * ? *)', "day-of-month and day-of-week are both '?'"],
    [
      'cron(0 10 ? * 0 *)',
      "'0' is not a valid day-of-week value (allowed 1-7 or SUN-SAT; 1 = SUN … 7 = SAT)",
    ],
    [
      'cron(0 10 ? * MON)',
      "it has 5 fields; EventBridge cron has 6 fields (minutes hours day-of-month month day-of-week year): add the year field, usually '*'",
    ],
    [
      'cron(0 0 10 ? * MON *)',
      'it has 7 fields; EventBridge cron has 6 fields (minutes hours day-of-month month day-of-week year) and no seconds field',
    ],
    ['cron(0 10 ? * MON 2200)', "'2200' is not a valid year value (allowed 1970-2199)"],
    ['cron(60 10 ? * MON *)', "'60' is not a valid minutes value (allowed 0-59)"],
    ['cron(0 10 ? * 3#6 *)', 'write <weekday>#<1-5> alone'],
    ['cron(0 10 ? * 2,3#2 *)', 'write <weekday>#<1-5> alone'],
    ['cron(0 10 1,L * ? *)', "'L' (last day of the month), 'LW' and '15W' each stand alone"],
    ['cron(0 10 1-5W * ? *)', "'W' follows one day 1-31"],
    ['cron(0 ? * * ? *)', "'?' is only allowed in day-of-month or day-of-week"],
    ['cron(0 22-2 * * ? *)', 'wrap-around ranges are not supported'],
    ['cron(*/0 10 * * ? *)', 'must be a whole number of at least 1 (minutes field)'],
    ['cron(0 0 30 2 ? *)', 'it never fires: no date matches its day, month and year fields'],
    ['cron(0 0 ? 2 1#5 2026-2029)', 'it never fires'],
    [
      'rate(1 minutes)',
      "trigger.expression: 'rate(1 minutes)' is not a valid EventBridge rate() expression: write rate(1 minute): the unit is singular when the value is 1 and plural otherwise",
    ],
    ['rate(5 minute)', 'write rate(5 minutes)'],
    ['rate(0 minutes)', "the value '0' must be a whole number of at least 1"],
    ['rate(2 weeks)', "unknown unit 'weeks'"],
    ['rate(5minutes)', 'write rate(<value> <unit>)'],
    ['at(2026-02-30T10:00:00)', 'write at(yyyy-mm-ddThh:mm:ss)'],
    ['at(2026-05-01T10:00:00Z)', 'write at(yyyy-mm-ddThh:mm:ss)'],
    [
      'every(5 minutes)',
      "is not an EventBridge Scheduler expression; write 'cron(0 10 ? * MON-FRI *)', 'rate(5 minutes)' or 'at(2026-05-01T09:30:00)'",
    ],
  ];
  it.each(cases)('%s', (expression, message) => {
    expect(problemOf(eventbridge(expression))).toContain(message);
  });

  it('refuses start_at and end_at on at(…), which EventBridge ignores for one-time schedules', () => {
    expect(
      problemOf(
        eventbridge('at(2026-05-01T09:30:00)', {
          start_at: '2026-01-01T00:00:00Z',
          end_at: '2027-01-01T00:00:00Z',
        }),
      ),
    ).toBe(
      'trigger.start_at: does not apply to at(…), which fires once (EventBridge Scheduler ignores StartDate and EndDate for one-time schedules); trigger.end_at: does not apply to at(…), which fires once (EventBridge Scheduler ignores StartDate and EndDate for one-time schedules)',
    );
  });

  it('refuses an expression longer than 512 characters before reading it', () => {
    expect(problemOf(eventbridge(`cron(${'0,'.repeat(300)}0 * * * ? *)`))).toContain(
      'must be at most 512 characters',
    );
  });
});

describe('a Sundial cron expression written in EventBridge’s dialect', () => {
  it('is explained as EventBridge syntax instead of a six-field Sundial cron (issue 13)', () => {
    expect(problemOf({ type: 'cron', expression: '0 10 ? * MON *' })).toBe(
      "trigger.expression: invalid cron expression '0 10 ? * MON *': it looks like an EventBridge Scheduler cron expression: write it as 'cron(0 10 ? * MON *)' in a trigger of type 'eventbridge' (docs/triggers.md) (as a Sundial cron expression: '?' is not supported (hour field); use '*')",
    );
  });

  it('is recognised by a four-digit year field or a ? in five fields', () => {
    expect(problemOf({ type: 'cron', expression: '0 10 * * 2 2027' })).toContain(
      "it looks like an EventBridge Scheduler cron expression, but as one it is not valid either: 'cron(0 10 * * 2 2027)' is not a valid EventBridge cron() expression: day-of-month ('*') and day-of-week ('2') cannot both be set",
    );
    expect(problemOf({ type: 'cron', expression: '0 10 ? * MON' })).toContain(
      "write it as 'cron(0 10 ? * MON *)' in a trigger of type 'eventbridge'",
    );
  });

  it('leaves other cron problems as they were', () => {
    expect(problemOf({ type: 'cron', expression: '61 * * * *' })).not.toContain('EventBridge');
  });
});

describe('eventbridge trigger: DST, as EventBridge Scheduler documents it', () => {
  it('skips a cron fire time that falls in the spring-forward gap (Sundial cron moves it to 03:00)', () => {
    expect(
      localFireTimes(
        eventbridge('cron(30 2 * * ? *)', { timezone: 'America/New_York' }),
        '2026-03-07T00:00:00Z',
        3,
      ),
    ).toEqual(['2026-03-07T02:30:00-05:00', '2026-03-09T02:30:00-04:00', '2026-03-10T02:30:00-04:00']);
    expect(
      localFireTimes(
        eventbridge('cron(*/20 2 * * ? *)', { timezone: 'Europe/Berlin' }),
        '2026-03-29T00:00:00Z',
        1,
      ),
    ).toEqual(['2026-03-30T02:00:00+02:00']);
  });

  it('runs a repeated wall time once, at its first occurrence, even with every hour (Sundial cron runs hourly jobs twice)', () => {
    expect(
      localFireTimes(
        eventbridge('cron(0 * * * ? *)', { timezone: 'America/New_York' }),
        '2026-11-01T04:30:00Z',
        3,
      ),
    ).toEqual(['2026-11-01T01:00:00-04:00', '2026-11-01T02:00:00-05:00', '2026-11-01T03:00:00-05:00']);
    // Asked from inside the second 01:xx, the repeated minutes are not fired again.
    expect(
      localFireTimes(
        eventbridge('cron(*/30 * * * ? *)', { timezone: 'America/New_York' }),
        '2026-11-01T06:10:00Z',
        1,
      ),
    ).toEqual(['2026-11-01T02:00:00-05:00']);
  });

  it('counts rate(1 day) as 24 hours across a DST change', () => {
    expect(
      localFireTimes(
        eventbridge('rate(1 day)', { timezone: 'America/New_York', start_at: '2026-03-07T14:00:00Z' }),
        '2026-03-07T00:00:00Z',
        3,
      ),
    ).toEqual(['2026-03-07T09:00:00-05:00', '2026-03-08T10:00:00-04:00', '2026-03-09T10:00:00-04:00']);
  });

  it('reads at(…) in the trigger’s zone; a time in the gap fires when the gap ends', () => {
    expect(
      utcFireTimes(
        eventbridge('at(2026-05-01T09:30:00)', { timezone: 'Europe/Berlin' }),
        '2026-01-01T00:00:00Z',
        2,
      ),
    ).toEqual(['2026-05-01T07:30:00.000Z']);
    expect(utcFireTimes(eventbridge('at(2026-05-01T09:30:00)'), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-05-01T09:30:00.000Z',
    ]);
    expect(
      localFireTimes(
        eventbridge('at(2026-03-08T02:30:00)', { timezone: 'America/New_York' }),
        '2026-01-01T00:00:00Z',
        1,
      ),
    ).toEqual(['2026-03-08T03:00:00-04:00']);
  });
});

describe('eventbridge trigger: start and end', () => {
  it('starts a rate(…) without start_at now, as EventBridge starts one without StartDate', () => {
    const now = Date.parse('2026-03-02T09:00:07Z');
    expect(anchorIntervals(parseTrigger(eventbridge('rate(5 minutes)')), now)).toEqual(
      eventbridge('rate(5 minutes)', { start_at: '2026-03-02T09:00:07Z' }),
    );
    expect(anchorIntervals(parseTrigger(eventbridge('cron(0 10 * * ? *)')), now)).toEqual(
      eventbridge('cron(0 10 * * ? *)'),
    );
  });

  it('keeps cron fire times inside start_at and end_at (both inclusive)', () => {
    const trigger = eventbridge('cron(0 10 * * ? *)', {
      start_at: '2026-01-02T10:00:00Z',
      end_at: '2026-01-03T10:00:00Z',
    });
    expect(utcFireTimes(trigger, '2026-01-01T00:00:00Z', 5)).toEqual([
      '2026-01-02T10:00:00.000Z',
      '2026-01-03T10:00:00.000Z',
    ]);
  });
});
