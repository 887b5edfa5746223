import { describe, expect, it } from 'vitest';
import { compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { localFireTimes, utcFireTimes } from './fire-times';

describe('calendar_interval trigger', () => {
  it('skips months without a 31st and does not drift (Jan 31 → Mar 31 → May 31)', () => {
    const trigger = {
      type: 'calendar_interval',
      months: 1,
      start_date: '2026-01-31',
      hour: 9,
      timezone: 'Europe/Berlin',
    };
    expect(localFireTimes(trigger, '2026-01-01T00:00:00Z', 5)).toEqual([
      '2026-01-31T09:00:00+01:00',
      '2026-03-31T09:00:00+02:00',
      '2026-05-31T09:00:00+02:00',
      '2026-07-31T09:00:00+02:00',
      '2026-08-31T09:00:00+02:00',
    ]);
  });

  it('fires on 29 February only in leap years', () => {
    const trigger = { type: 'calendar_interval', years: 1, start_date: '2024-02-29' };
    expect(utcFireTimes(trigger, '2024-03-01T00:00:00Z', 3)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
      '2036-02-29T00:00:00.000Z',
    ]);
  });

  it('counts weeks and days from start_date and keeps the wall-clock time across DST', () => {
    const trigger = {
      type: 'calendar_interval',
      weeks: 1,
      hour: 8,
      minute: 15,
      start_date: '2026-03-02',
      timezone: 'America/New_York',
    };
    expect(localFireTimes(trigger, '2026-03-01T00:00:00Z', 3)).toEqual([
      '2026-03-02T08:15:00-05:00',
      '2026-03-09T08:15:00-04:00',
      '2026-03-16T08:15:00-04:00',
    ]);
  });

  it('moves a time in a DST gap to the end of the gap and takes the first of a repeated time', () => {
    const gap = {
      type: 'calendar_interval',
      days: 1,
      hour: 2,
      minute: 30,
      start_date: '2026-03-28',
      timezone: 'Europe/Berlin',
    };
    expect(localFireTimes(gap, '2026-03-28T00:00:00Z', 3)).toEqual([
      '2026-03-28T02:30:00+01:00',
      '2026-03-29T03:00:00+02:00',
      '2026-03-30T02:30:00+02:00',
    ]);
    const overlap = { ...gap, start_date: '2026-10-24' };
    expect(localFireTimes(overlap, '2026-10-24T00:00:00Z', 3)).toEqual([
      '2026-10-24T02:30:00+02:00',
      '2026-10-25T02:30:00+02:00',
      '2026-10-26T02:30:00+01:00',
    ]);
  });

  it('handles Lord Howe’s half-hour shift', () => {
    const trigger = {
      type: 'calendar_interval',
      days: 1,
      hour: 2,
      minute: 10,
      start_date: '2026-10-03',
      timezone: 'Australia/Lord_Howe',
    };
    expect(localFireTimes(trigger, '2026-10-01T00:00:00Z', 3)).toEqual([
      '2026-10-03T02:10:00+10:30',
      '2026-10-04T02:30:00+11:00',
      '2026-10-05T02:10:00+11:00',
    ]);
  });

  it('includes end_date and is finished after it', () => {
    const trigger = { type: 'calendar_interval', days: 2, start_date: '2026-01-01', end_date: '2026-01-05' };
    expect(utcFireTimes(trigger, '2025-01-01T00:00:00Z', 10)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
    ]);
  });

  it('finds the occurrence for a far-away from without walking there', () => {
    const source = compileTrigger(
      parseTrigger({
        type: 'calendar_interval',
        months: 1,
        start_date: '1970-01-31',
        timezone: 'Asia/Tokyo',
      }),
    );
    const started = performance.now();
    const fire = source.next(Date.parse('9000-02-01T00:00:00Z'));
    expect(new Date(fire ?? 0).toISOString()).toBe('9000-03-30T15:00:00.000Z');
    expect(performance.now() - started).toBeLessThan(50);
  });
});
