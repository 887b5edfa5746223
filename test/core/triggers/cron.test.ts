import { describe, expect, it } from 'vitest';
import { canonicalCronExpression, compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { utcFireTimes } from './fire-times';

const cron = (expression: string, extra: Record<string, unknown> = {}) => ({
  type: 'cron',
  expression,
  ...extra,
});

describe('cron trigger: fields', () => {
  it.each([
    [
      '*/5 * * * *',
      '2026-01-01T00:03:00Z',
      ['2026-01-01T00:05:00.000Z', '2026-01-01T00:10:00.000Z', '2026-01-01T00:15:00.000Z'],
    ],
    [
      '*/20 * * * * *',
      '2026-01-01T00:00:01Z',
      ['2026-01-01T00:00:20.000Z', '2026-01-01T00:00:40.000Z', '2026-01-01T00:01:00.000Z'],
    ],
    [
      '*/90 * * * *',
      '2026-01-01T00:00:01Z',
      ['2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z'],
    ],
    [
      '0 9-10,15 * * *',
      '2026-01-01T00:00:00Z',
      ['2026-01-01T09:00:00.000Z', '2026-01-01T10:00:00.000Z', '2026-01-01T15:00:00.000Z'],
    ],
    [
      '10-30/10 12 * * *',
      '2026-01-01T00:00:00Z',
      ['2026-01-01T12:10:00.000Z', '2026-01-01T12:20:00.000Z', '2026-01-01T12:30:00.000Z'],
    ],
    [
      '0 0 1 JAN,jul *',
      '2026-01-02T00:00:00Z',
      ['2026-07-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-07-01T00:00:00.000Z'],
    ],
    [
      '0 8 * * MON-WED',
      '2026-01-01T00:00:00Z',
      ['2026-01-05T08:00:00.000Z', '2026-01-06T08:00:00.000Z', '2026-01-07T08:00:00.000Z'],
    ],
    [
      '0 0 * * 7',
      '2026-01-01T00:00:00Z',
      ['2026-01-04T00:00:00.000Z', '2026-01-11T00:00:00.000Z', '2026-01-18T00:00:00.000Z'],
    ],
    [
      '@daily',
      '2026-01-01T00:00:01Z',
      ['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
    ],
    [
      '@hourly',
      '2026-01-01T00:00:01Z',
      ['2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z'],
    ],
  ])('%s from %s', (expression, from, expected) => {
    expect(utcFireTimes(cron(expression), from, 3)).toEqual(expected);
  });

  it('fires on the 13th and on every Friday when both day fields are restricted (POSIX OR)', () => {
    expect(utcFireTimes(cron('0 0 13 * FRI'), '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
      '2026-01-13T00:00:00.000Z',
      '2026-01-16T00:00:00.000Z',
    ]);
  });

  it('treats a stepped day-of-month as restricted: days 1, 11, 21, 31 or Mondays', () => {
    expect(utcFireTimes(cron('0 0 */10 * MON'), '2026-01-01T00:00:00Z', 5)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
      '2026-01-11T00:00:00.000Z',
      '2026-01-12T00:00:00.000Z',
      '2026-01-19T00:00:00.000Z',
    ]);
  });

  it('fires on odd days or on Mondays for 0 0 */2 * MON (a field is restricted unless exactly *)', () => {
    expect(utcFireTimes(cron('0 0 */2 * MON'), '2026-06-01T00:00:00Z', 6)).toEqual([
      '2026-06-01T00:00:00.000Z',
      '2026-06-03T00:00:00.000Z',
      '2026-06-05T00:00:00.000Z',
      '2026-06-07T00:00:00.000Z',
      '2026-06-08T00:00:00.000Z',
      '2026-06-09T00:00:00.000Z',
    ]);
  });

  it('runs day-of-week steps up to 7, Sunday: 1/3 is Monday, Thursday and Sunday', () => {
    expect(utcFireTimes(cron('0 9 * * 1/3'), '2026-06-01T00:00:00Z', 4)).toEqual([
      '2026-06-01T09:00:00.000Z',
      '2026-06-04T09:00:00.000Z',
      '2026-06-07T09:00:00.000Z',
      '2026-06-08T09:00:00.000Z',
    ]);
  });

  it('fires on the weekday alone when day-of-month is *', () => {
    expect(utcFireTimes(cron('0 0 * * 1'), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-05T00:00:00.000Z',
      '2026-01-12T00:00:00.000Z',
    ]);
  });
});

describe('cron trigger: a list is the union of its members, overlapping or not', () => {
  it.each([
    [
      '0 9 * * 0,7',
      '2026-01-01T00:00:00Z',
      ['2026-01-04T09:00:00.000Z', '2026-01-11T09:00:00.000Z', '2026-01-18T09:00:00.000Z'],
    ],
    [
      '*/15,30 * * * *',
      '2026-01-01T00:10:00Z',
      ['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T00:45:00.000Z'],
    ],
    [
      '0 0 1,1-5 * *',
      '2026-01-03T00:00:00Z',
      [
        '2026-01-03T00:00:00.000Z',
        '2026-01-04T00:00:00.000Z',
        '2026-01-05T00:00:00.000Z',
        '2026-02-01T00:00:00.000Z',
      ],
    ],
    [
      '0 9 * * MON-FRI,1',
      '2026-01-02T10:00:00Z',
      ['2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z', '2026-01-07T09:00:00.000Z'],
    ],
    [
      '0 0 * * 5L,FRIL',
      '2026-01-01T00:00:00Z',
      ['2026-01-30T00:00:00.000Z', '2026-02-27T00:00:00.000Z', '2026-03-27T00:00:00.000Z'],
    ],
    [
      '0 0 L,L,31 * *',
      '2026-01-01T00:00:00Z',
      ['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z', '2026-03-31T00:00:00.000Z'],
    ],
  ])('%s from %s', (expression, from, expected) => {
    expect(utcFireTimes(cron(expression), from, expected.length)).toEqual(expected);
  });
});

describe('canonicalCronExpression', () => {
  it.each([
    ['0 9 * * 0,7', '0 9 * * 0'],
    ['*/20,0 * * * * *', '0,20,40 * * * * *'],
    ['0 0 1,1-5,L,L * *', '0 0 1-5,L * *'],
    ['0 0 * * 5L,FRIL,1', '0 0 * * 1,5L'],
    ['0 9 * * 5,1', '0 9 * * 5,1'],
    ['@daily', '@daily'],
    ['0 9 * * 0,8', '0 9 * * 0,8'],
  ])('writes %s as %s: only lists whose members overlap change', (expression, canonical) => {
    expect(canonicalCronExpression(expression)).toBe(canonical);
  });
});

describe('cron trigger: month ends, L and #', () => {
  it('L fires on the last day of every month, 28 or 29 February included', () => {
    expect(utcFireTimes(cron('0 0 L * *'), '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-04-30T00:00:00.000Z',
    ]);
    expect(utcFireTimes(cron('0 0 L 2 *'), '2027-03-01T00:00:00Z', 2)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2029-02-28T00:00:00.000Z',
    ]);
  });

  it('L combines with other days in a list', () => {
    expect(utcFireTimes(cron('0 0 15,L * *'), '2026-02-01T00:00:00Z', 3)).toEqual([
      '2026-02-15T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-15T00:00:00.000Z',
    ]);
  });

  it('5L fires on the last Friday of each month', () => {
    expect(utcFireTimes(cron('0 0 * * 5L'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-30T00:00:00.000Z',
      '2026-02-27T00:00:00.000Z',
      '2026-03-27T00:00:00.000Z',
    ]);
  });

  it('1#1 fires on the first Monday and 5#5 only in months with five Fridays', () => {
    expect(utcFireTimes(cron('0 0 * * 1#1'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-05T00:00:00.000Z',
      '2026-02-02T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
    expect(utcFireTimes(cron('0 0 * * FRI#5'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-30T00:00:00.000Z',
      '2026-05-29T00:00:00.000Z',
      '2026-07-31T00:00:00.000Z',
    ]);
  });

  it('fires on leap days only: 0 0 29 2 *', () => {
    expect(utcFireTimes(cron('0 0 29 2 *'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
      '2036-02-29T00:00:00.000Z',
    ]);
  });

  it('skips 2100, which is not a leap year', () => {
    expect(utcFireTimes(cron('0 0 29 2 *'), '2097-01-01T00:00:00Z', 2)).toEqual([
      '2104-02-29T00:00:00.000Z',
      '2108-02-29T00:00:00.000Z',
    ]);
  });
});

describe('cron trigger: window and resolution', () => {
  const hourly = cron('0 * * * *', { start_at: '2026-01-01T02:00:00Z', end_at: '2026-01-01T04:00:00Z' });

  it('includes start_at and end_at', () => {
    expect(utcFireTimes(hourly, '2025-12-31T00:00:00Z', 5)).toEqual([
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
      '2026-01-01T04:00:00.000Z',
    ]);
  });

  it('is finished after end_at', () => {
    expect(compileTrigger(parseTrigger(hourly)).next(Date.parse('2026-01-01T04:00:00.001Z'))).toBeUndefined();
  });

  it('treats from as inclusive and rounds a fractional second up', () => {
    const source = compileTrigger(parseTrigger(cron('* * * * * *')));
    const instant = Date.parse('2026-01-01T00:00:07Z');
    expect(source.next(instant)).toBe(instant);
    expect(source.next(instant + 1)).toBe(instant + 1_000);
    expect(source.next(instant - 999)).toBe(instant);
  });

  it('refuses an instant that is not a finite number', () => {
    expect(() => compileTrigger(parseTrigger(cron('0 0 * * *'))).next(Number.NaN)).toThrow(RangeError);
  });

  it('has no fire time from year 10000 on', () => {
    expect(
      compileTrigger(parseTrigger(cron('0 0 1 1 *'))).next(Date.parse('9999-06-01T00:00:00Z')),
    ).toBeUndefined();
  });
});
