import { describe, expect, it } from 'vitest';
import { localFireTimes, utcFireTimes } from './fire-times';

const cron = (expression: string, timezone: string) => ({ type: 'cron', expression, timezone });

describe('cron trigger: DST gap (spring forward)', () => {
  it('runs a daily 02:30 New York job at 03:00 EDT on 2026-03-08 (cron-parser alone says 03:30)', () => {
    expect(utcFireTimes(cron('30 2 * * *', 'America/New_York'), '2026-03-07T12:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
  });

  it('fires once for wall times that collapse onto the end of the gap', () => {
    expect(localFireTimes(cron('*/15 2 * * *', 'America/New_York'), '2026-03-08T00:00:00Z', 3)).toEqual([
      '2026-03-08T03:00:00-04:00',
      '2026-03-09T02:00:00-04:00',
      '2026-03-09T02:15:00-04:00',
    ]);
  });

  it('keeps an hourly job on every real hour', () => {
    expect(localFireTimes(cron('0 * * * *', 'America/New_York'), '2026-03-08T05:30:00Z', 3)).toEqual([
      '2026-03-08T01:00:00-05:00',
      '2026-03-08T03:00:00-04:00',
      '2026-03-08T04:00:00-04:00',
    ]);
  });

  it('keeps a real-time (hour *) job at :30 one real hour apart instead of adding a fire at 03:00', () => {
    expect(localFireTimes(cron('30 * * * *', 'America/New_York'), '2026-03-08T06:00:00Z', 3)).toEqual([
      '2026-03-08T01:30:00-05:00',
      '2026-03-08T03:30:00-04:00',
      '2026-03-08T04:30:00-04:00',
    ]);
  });

  it('moves 02:30 to 03:00 CEST in Berlin on 2026-03-29', () => {
    expect(localFireTimes(cron('30 2 * * *', 'Europe/Berlin'), '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T03:00:00+02:00',
      '2026-03-30T02:30:00+02:00',
    ]);
  });

  it('handles Lord Howe’s 30-minute gap (02:00 → 02:30 on 2026-10-04)', () => {
    expect(localFireTimes(cron('*/15 2 * * *', 'Australia/Lord_Howe'), '2026-10-03T14:00:00Z', 4)).toEqual([
      '2026-10-04T02:30:00+11:00',
      '2026-10-04T02:45:00+11:00',
      '2026-10-05T02:00:00+11:00',
      '2026-10-05T02:15:00+11:00',
    ]);
  });

  it('handles a gap at midnight (America/Santiago, 2026-09-06 00:00 → 01:00)', () => {
    expect(localFireTimes(cron('0 0 * * *', 'America/Santiago'), '2026-09-05T12:00:00Z', 2)).toEqual([
      '2026-09-06T01:00:00-03:00',
      '2026-09-07T00:00:00-03:00',
    ]);
  });
});

describe('cron trigger: DST overlap (fall back)', () => {
  it('fires an hourly (hour field *) New York job in both 01:00 hours', () => {
    expect(utcFireTimes(cron('0 * * * *', 'America/New_York'), '2026-11-01T03:30:00Z', 5)).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
    ]);
  });

  it('fires a fixed-hour job once, at the first occurrence', () => {
    expect(localFireTimes(cron('30 1 * * *', 'America/New_York'), '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T01:30:00-04:00',
      '2026-11-02T01:30:00-05:00',
    ]);
  });

  it('treats a stepped hour field (*/2) as fixed hours', () => {
    expect(localFireTimes(cron('0 */2 * * *', 'Europe/Berlin'), '2026-10-24T21:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00+02:00',
      '2026-10-25T02:00:00+02:00',
      '2026-10-25T04:00:00+01:00',
    ]);
  });

  it('follows real time through Berlin’s repeated 02:00 hour', () => {
    expect(localFireTimes(cron('30 * * * *', 'Europe/Berlin'), '2026-10-24T23:00:00Z', 4)).toEqual([
      '2026-10-25T01:30:00+02:00',
      '2026-10-25T02:30:00+02:00',
      '2026-10-25T02:30:00+01:00',
      '2026-10-25T03:30:00+01:00',
    ]);
  });

  it('handles Lord Howe’s 30-minute overlap for wildcard and fixed hours', () => {
    expect(localFireTimes(cron('*/20 * * * *', 'Australia/Lord_Howe'), '2026-04-04T14:00:00Z', 6)).toEqual([
      '2026-04-05T01:00:00+11:00',
      '2026-04-05T01:20:00+11:00',
      '2026-04-05T01:40:00+11:00',
      '2026-04-05T01:40:00+10:30',
      '2026-04-05T02:00:00+10:30',
      '2026-04-05T02:20:00+10:30',
    ]);
    expect(localFireTimes(cron('45 1 * * *', 'Australia/Lord_Howe'), '2026-04-04T12:00:00Z', 2)).toEqual([
      '2026-04-05T01:45:00+11:00',
      '2026-04-06T01:45:00+10:30',
    ]);
  });
});

describe('cron trigger: zones without DST', () => {
  it('keeps Asia/Tokyo at +09:00 all year', () => {
    expect(localFireTimes(cron('0 12 * * *', 'Asia/Tokyo'), '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T12:00:00+09:00',
      '2026-03-30T12:00:00+09:00',
    ]);
    expect(utcFireTimes(cron('0 12 1 11 *', 'Asia/Tokyo'), '2026-01-01T00:00:00Z', 1)).toEqual([
      '2026-11-01T03:00:00.000Z',
    ]);
  });
});
