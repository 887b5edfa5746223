import { describe, expect, it } from 'vitest';
import { compileTrigger, MaxIterationsReachedError, parseTrigger } from '../../../lib/core/triggers';
import { utcFireTimes } from './fire-times';

/**
 * The cases of APScheduler 4's tests/triggers/test_combining.py, in Sundial's JSON (microseconds
 * become milliseconds; APScheduler's cron fields default to 00:00:00 where Sundial writes them).
 */

const utc = (text: string) => new Date(text).toISOString();

describe('and trigger (APScheduler 4 cases)', () => {
  const date1 = '2020-05-16T14:17:30.254+02:00';
  const date2 = '2020-05-16T14:17:31.254+02:00';

  const twoDates = (threshold_seconds: number) => ({
    type: 'and',
    threshold_seconds,
    triggers: [
      { type: 'date', run_at: date1 },
      { type: 'date', run_at: date2 },
    ],
  });

  it('fires once for two date triggers 1 s apart with threshold 1, then is finished', () => {
    expect(utcFireTimes(twoDates(1), '2020-01-01T00:00:00Z', 3)).toEqual([utc(date1)]);
  });

  it('never fires for two date triggers 1 s apart with threshold 0', () => {
    expect(utcFireTimes(twoDates(0), '2020-01-01T00:00:00Z', 3)).toEqual([]);
  });

  it('gives up after max_iterations for 4 s intervals 2 s apart (threshold 1)', () => {
    const trigger = parseTrigger({
      type: 'and',
      triggers: [
        { type: 'interval', seconds: 4, start_at: '2020-05-16T14:17:30.254+02:00' },
        { type: 'interval', seconds: 4, start_at: '2020-05-16T14:17:32.254+02:00' },
      ],
    });
    expect(() => compileTrigger(trigger).next(Date.parse('2020-05-16T12:00:00Z'))).toThrow(
      MaxIterationsReachedError,
    );
  });

  it.each([
    {
      name: 'every 6 h and every 12 h',
      triggers: [
        { type: 'interval', hours: 6, start_at: '2024-05-01T00:00:00Z' },
        { type: 'interval', hours: 12, start_at: '2024-05-01T00:00:00Z' },
      ],
      expected: ['2024-05-01T00:00:00Z', '2024-05-01T12:00:00Z', '2024-05-02T00:00:00Z'],
    },
    {
      name: 'every day and every week',
      triggers: [
        { type: 'interval', days: 1, start_at: '2024-05-01T00:00:00Z' },
        { type: 'interval', weeks: 1, start_at: '2024-05-01T00:00:00Z' },
      ],
      expected: ['2024-05-01T00:00:00Z', '2024-05-08T00:00:00Z', '2024-05-15T00:00:00Z'],
    },
    {
      name: 'hourly on weekdays and every 12 h',
      triggers: [
        { type: 'cron', expression: '0 * * * MON-FRI', start_at: '2024-05-03T00:00:00Z' },
        { type: 'interval', hours: 12, start_at: '2024-05-03T00:00:00Z' },
      ],
      expected: ['2024-05-03T00:00:00Z', '2024-05-03T12:00:00Z', '2024-05-06T00:00:00Z'],
    },
    {
      name: 'daily on weekdays and every 4 days',
      triggers: [
        { type: 'cron', expression: '0 0 * * MON-FRI', start_at: '2024-05-13T00:00:00Z' },
        { type: 'interval', days: 4, start_at: '2024-05-13T00:00:00Z' },
      ],
      expected: [
        '2024-05-13T00:00:00Z',
        '2024-05-17T00:00:00Z',
        '2024-05-21T00:00:00Z',
        '2024-05-29T00:00:00Z',
      ],
    },
    {
      name: 'monthly on the 1st and daily on weekdays',
      triggers: [
        { type: 'calendar_interval', months: 1, start_date: '2024-01-01' },
        { type: 'cron', expression: '0 0 * * MON-FRI', start_at: '2024-01-01T00:00:00Z' },
      ],
      expected: [
        '2024-01-01T00:00:00Z',
        '2024-02-01T00:00:00Z',
        '2024-03-01T00:00:00Z',
        '2024-04-01T00:00:00Z',
        '2024-05-01T00:00:00Z',
        '2024-07-01T00:00:00Z',
        '2024-08-01T00:00:00Z',
        '2024-10-01T00:00:00Z',
        '2024-11-01T00:00:00Z',
      ],
    },
  ])('fires where its triggers overlap: $name', ({ triggers, expected }) => {
    const trigger = { type: 'and', triggers };
    expect(utcFireTimes(trigger, '2024-01-01T00:00:00Z', expected.length)).toEqual(expected.map(utc));
  });
});

describe('or trigger (APScheduler 4 cases)', () => {
  it('fires at each of two date triggers, then is finished', () => {
    const date1 = '2020-05-16T14:17:30.254+02:00';
    const date2 = '2020-05-18T15:01:53.940+02:00';
    const trigger = {
      type: 'or',
      triggers: [
        { type: 'date', run_at: date1 },
        { type: 'date', run_at: date2 },
      ],
    };
    expect(utcFireTimes(trigger, '2020-01-01T00:00:00Z', 3)).toEqual([utc(date1), utc(date2)]);
  });

  it('merges two intervals with their own end_at and is finished when both are', () => {
    const start = Date.parse('2020-05-16T14:17:30.254+02:00');
    const at = (seconds: number) => new Date(start + seconds * 1_000).toISOString();
    const trigger = {
      type: 'or',
      triggers: [
        { type: 'interval', seconds: 4, start_at: at(0), end_at: at(16) },
        { type: 'interval', seconds: 6, start_at: at(0), end_at: at(18) },
      ],
    };
    expect(utcFireTimes(trigger, at(0), 10)).toEqual([0, 4, 6, 8, 12, 16, 18].map(at));
  });
});
