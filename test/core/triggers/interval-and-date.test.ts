import { describe, expect, it } from 'vitest';
import { compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { utcFireTimes } from './fire-times';

describe('interval trigger', () => {
  it('counts from start_at, which is the first fire time', () => {
    const trigger = { type: 'interval', minutes: 90, start_at: '2026-01-01T10:17:00Z' };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T10:17:00.000Z',
      '2026-01-01T11:47:00.000Z',
      '2026-01-01T13:17:00.000Z',
    ]);
  });

  it('is anchored at the Unix epoch without start_at, so it fires on whole multiples', () => {
    expect(utcFireTimes({ type: 'interval', seconds: 5 }, '2026-01-01T00:00:01Z', 2)).toEqual([
      '2026-01-01T00:00:05.000Z',
      '2026-01-01T00:00:10.000Z',
    ]);
  });

  it('adds its units together', () => {
    const trigger = {
      type: 'interval',
      weeks: 1,
      days: 1,
      hours: 1,
      minutes: 1,
      seconds: 1,
      start_at: '2026-01-01T00:00:00Z',
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:01Z', 1)).toEqual(['2026-01-09T01:01:01.000Z']);
  });

  it('is elapsed time: 24 hours across a DST change stay 24 hours', () => {
    const trigger = { type: 'interval', hours: 24, start_at: '2026-03-28T12:00:00+01:00' };
    expect(utcFireTimes(trigger, '2026-03-28T00:00:00Z', 2)).toEqual([
      '2026-03-28T11:00:00.000Z',
      '2026-03-29T11:00:00.000Z',
    ]);
  });

  it('includes end_at and is finished after it', () => {
    const trigger = {
      type: 'interval',
      hours: 1,
      start_at: '2026-01-01T00:00:00Z',
      end_at: '2026-01-01T02:00:00Z',
    };
    expect(utcFireTimes(trigger, '2025-01-01T00:00:00Z', 10)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
    ]);
  });

  it('computes a far-away fire time directly', () => {
    const source = compileTrigger(
      parseTrigger({ type: 'interval', seconds: 1, start_at: '1970-01-01T00:00:00Z' }),
    );
    const farAway = Date.parse('9000-01-01T00:00:00.500Z');
    expect(source.next(farAway)).toBe(farAway + 500);
  });
});

describe('date trigger', () => {
  const once = { type: 'date', run_at: '2026-05-01T09:30:00+02:00' };

  it('fires once, at run_at', () => {
    expect(utcFireTimes(once, '2026-01-01T00:00:00Z', 3)).toEqual(['2026-05-01T07:30:00.000Z']);
  });

  it('fires at run_at when asked from exactly run_at, and never after', () => {
    const source = compileTrigger(parseTrigger(once));
    const runAt = Date.parse('2026-05-01T07:30:00Z');
    expect(source.next(runAt)).toBe(runAt);
    expect(source.next(runAt + 1)).toBeUndefined();
  });

  it('keeps milliseconds', () => {
    expect(
      utcFireTimes({ type: 'date', run_at: '2026-05-01T07:30:00.123Z' }, '2026-01-01T00:00:00Z', 1),
    ).toEqual(['2026-05-01T07:30:00.123Z']);
  });

  it('drops the digits after the millisecond instead of rounding, before 1970 too', () => {
    expect(
      utcFireTimes({ type: 'date', run_at: '2026-05-01T09:30:00.1239+02:00' }, '2026-01-01T00:00:00Z', 1),
    ).toEqual(['2026-05-01T07:30:00.123Z']);
    expect(
      utcFireTimes({ type: 'date', run_at: '1969-12-31T23:59:59.999999999Z' }, '1969-01-01T00:00:00Z', 1),
    ).toEqual(['1969-12-31T23:59:59.999Z']);
    const interval = { type: 'interval', seconds: 10, start_at: '2026-05-01T00:00:00.0005Z' };
    expect(utcFireTimes(interval, '2026-04-30T00:00:00Z', 2)).toEqual([
      '2026-05-01T00:00:00.000Z',
      '2026-05-01T00:00:10.000Z',
    ]);
  });
});
