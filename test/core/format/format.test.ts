import { describe, expect, it } from 'vitest';
import { compactDuration, relativeTime, wholeDuration } from '../../../lib/core/format/durations';
import { clockTime, timeInZone } from '../../../lib/core/format/time-in-zone';
import { describeTrigger } from '../../../lib/core/format/triggers';
import type { TriggerSpec } from '../../../lib/core/triggers';

/** The words the CLI and the dashboard both use for times, durations and triggers. */

const NOW = Date.parse('2026-03-02T09:00:00Z');

describe('relative times', () => {
  it.each([
    [0, 'now'],
    [400, 'now'],
    [-400, 'now'],
    [42_000, 'in 42 s'],
    [-42_400, '42 s ago'],
    [59_400, 'in 59 s'],
    [59_600, 'in 1 min'],
    [-3 * 60_000, '3 min ago'],
    [59 * 60_000, 'in 59 min'],
    [59 * 60_000 + 40_000, 'in 1 h'],
    [5 * 3_600_000, 'in 5 h'],
    [47 * 3_600_000, 'in 47 h'],
    [-3 * 86_400_000, '3 d ago'],
  ])('%d ms from now reads "%s"', (offset, text) => {
    expect(relativeTime(NOW + offset, NOW)).toBe(text);
  });
});

describe('durations', () => {
  it('writes durations compactly and periods in their largest whole unit', () => {
    expect([0.85, 2.5, 12.34, 200, 7_500].map(compactDuration)).toEqual([
      '850 ms',
      '2.5 s',
      '12.3 s',
      '3 min 20 s',
      '2 h 5 min',
    ]);
    expect([604_800, 3_600, 5_400, 90].map(wholeDuration)).toEqual(['7 d', '1 h', '90 min', '90 s']);
  });
});

describe('times in a schedule’s time zone', () => {
  it('shows wall-clock time with the zone’s abbreviation across a DST change, milliseconds only when any', () => {
    expect(timeInZone(Date.parse('2026-03-28T08:00:00Z'), 'Europe/Berlin')).toBe(
      'Sat 2026-03-28 09:00:00 CET',
    );
    expect(timeInZone(Date.parse('2026-03-30T07:00:00Z'), 'Europe/Berlin')).toBe(
      'Mon 2026-03-30 09:00:00 CEST',
    );
    expect(timeInZone(Date.parse('2026-03-08T07:00:00.250Z'), 'America/New_York')).toBe(
      'Sun 2026-03-08 03:00:00.250 EDT',
    );
    expect(timeInZone(NOW, 'UTC')).toBe('Mon 2026-03-02 09:00:00 UTC');
  });

  it('falls back to the numeric offset where no abbreviation is known', () => {
    expect(timeInZone(NOW, 'Asia/Kolkata')).toBe('Mon 2026-03-02 14:30:00 IST');
    expect(timeInZone(NOW, 'Asia/Tokyo')).toBe('Mon 2026-03-02 18:00:00 +09:00');
    expect(timeInZone(NOW, 'America/Sao_Paulo')).toBe('Mon 2026-03-02 06:00:00 -03:00');
  });

  it('gives the time of day alone for compact lists', () => {
    expect(clockTime(Date.parse('2026-03-02T09:00:42.5Z'), 'Europe/Berlin')).toBe('10:00:42');
  });
});

describe('triggers in one line', () => {
  it.each<[TriggerSpec, string]>([
    [{ type: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' }, 'cron 0 9 * * MON-FRI'],
    [{ type: 'interval', hours: 1, minutes: 30 }, 'every 1h30m'],
    [{ type: 'interval', seconds: 5, start_at: '2026-03-02T09:00:00Z' }, 'every 5s'],
    [{ type: 'calendar_interval', months: 1, start_date: '2026-01-31', hour: 9 }, 'every 1 month at 09:00'],
    [
      {
        type: 'calendar_interval',
        weeks: 2,
        days: 1,
        start_date: '2026-01-31',
        hour: 7,
        minute: 5,
        second: 30,
      },
      'every 2 weeks 1 day at 07:05:30',
    ],
    [{ type: 'date', run_at: '2026-05-01T07:30:00Z' }, 'once at 2026-05-01T07:30:00Z'],
    [{ type: 'or', triggers: [{ type: 'cron', expression: '0 8 * * *' }] }, 'or(1 trigger)'],
    [
      {
        type: 'and',
        triggers: [
          { type: 'cron', expression: '0 8 * * *' },
          { type: 'interval', hours: 2 },
        ],
      },
      'and(2 triggers)',
    ],
  ])('%j reads "%s"', (trigger, text) => {
    expect(describeTrigger(trigger)).toBe(text);
  });
});
