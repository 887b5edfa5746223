import { describe, expect, it } from 'vitest';
import { compileTrigger, MaxIterationsReachedError, parseTrigger } from '../../../lib/core/triggers';
import { utcFireTimes } from './fire-times';

const every = (seconds: number, start_at?: string) => ({
  type: 'interval',
  seconds,
  ...(start_at ? { start_at } : {}),
});

describe('or trigger', () => {
  it('fires whenever any child fires, and once for an instant they share', () => {
    const trigger = { type: 'or', triggers: [every(10), every(15)] };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:01Z', 5)).toEqual([
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:15.000Z',
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:00:40.000Z',
    ]);
  });

  it('goes on while any child does and is finished when all are', () => {
    const trigger = {
      type: 'or',
      triggers: [
        { type: 'date', run_at: '2026-01-01T00:00:00Z' },
        { type: 'date', run_at: '2026-01-02T00:00:00Z' },
      ],
    };
    expect(utcFireTimes(trigger, '2025-01-01T00:00:00Z', 5)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
  });
});

describe('and trigger', () => {
  it('fires when all children fire together: every 10 s and every 15 s coincide every 30 s', () => {
    const trigger = { type: 'and', triggers: [every(10), every(15)], threshold_seconds: 0 };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:01Z', 2)).toEqual([
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
  });

  it('fires at the earliest of children within threshold_seconds of each other', () => {
    const trigger = {
      type: 'and',
      triggers: [every(60), every(60, '2026-01-01T00:00:02Z')],
      threshold_seconds: 2,
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:01Z', 2)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:02:00.000Z',
    ]);
  });

  it('combines a weekday cron with the first days of the month: first weekday-morning of a month', () => {
    const trigger = {
      type: 'and',
      triggers: [
        { type: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' },
        { type: 'cron', expression: '0 9 1-3 * *', timezone: 'Europe/Berlin' },
      ],
    };
    expect(utcFireTimes(trigger, '2026-02-01T00:00:00Z', 4)).toEqual([
      '2026-02-02T08:00:00.000Z',
      '2026-02-03T08:00:00.000Z',
      '2026-03-02T08:00:00.000Z',
      '2026-03-03T08:00:00.000Z',
    ]);
  });

  it('is finished as soon as one child is', () => {
    const trigger = { type: 'and', triggers: [every(10), { type: 'date', run_at: '2026-01-01T00:00:20Z' }] };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:00Z', 3)).toEqual(['2026-01-01T00:00:20.000Z']);
  });

  it('is finished after the last coincidence when a child ends', () => {
    const trigger = {
      type: 'and',
      triggers: [every(10), { type: 'interval', seconds: 15, end_at: '2026-01-01T00:01:30Z' }],
      threshold_seconds: 0,
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:01Z', 5)).toEqual([
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:01:30.000Z',
    ]);
  });

  it('throws MaxIterationsReachedError when the children never coincide', () => {
    const trigger = parseTrigger({
      type: 'and',
      triggers: [every(10), every(10, '2026-01-01T00:00:05Z')],
      max_iterations: 50,
    });
    const next = () => compileTrigger(trigger).next(Date.parse('2026-01-01T00:00:00Z'));
    expect(next).toThrow(MaxIterationsReachedError);
    expect(next).toThrow(/after 50 iterations/);
  });

  it('bounds each search by max_iterations: 7 s and 11 s intervals 1 s apart first meet after 12 rounds', () => {
    const trigger = (max_iterations: number) => ({
      type: 'and',
      threshold_seconds: 0,
      max_iterations,
      triggers: [every(7, '2026-01-01T00:00:00Z'), every(11, '2026-01-01T00:00:01Z')],
    });
    expect(utcFireTimes(trigger(12), '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-01T00:00:56.000Z']);
    expect(() => utcFireTimes(trigger(11), '2026-01-01T00:00:00Z', 1)).toThrow(MaxIterationsReachedError);
  });
});

describe('and trigger: a coincidence consumes the fire times that formed it', () => {
  const offsetPair = {
    type: 'and',
    threshold_seconds: 1,
    triggers: [every(2, '2026-01-01T00:00:00Z'), every(2, '2026-01-01T00:00:01Z')],
  };

  it('fires no more often than its children: two 2 s intervals 1 s apart give :00, :02, :04, :06', () => {
    expect(utcFireTimes(offsetPair, '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:04.000Z',
      '2026-01-01T00:00:06.000Z',
    ]);
  });

  it('gives the same fire times whatever instant it is asked from', () => {
    expect(utcFireTimes(offsetPair, '2026-01-01T00:00:01Z', 2)).toEqual([
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:04.000Z',
    ]);
    expect(utcFireTimes(offsetPair, '2026-01-01T05:17:03Z', 2)).toEqual([
      '2026-01-01T05:17:04.000Z',
      '2026-01-01T05:17:06.000Z',
    ]);
  });

  it('fires on whole seconds only for every second and a 1 s interval starting at .5', () => {
    const trigger = {
      type: 'and',
      triggers: [{ type: 'cron', expression: '* * * * * *' }, every(1, '2026-01-01T00:00:00.500Z')],
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:03.000Z',
    ]);
    expect(utcFireTimes(trigger, '2026-01-01T00:00:00.001Z', 1)).toEqual(['2026-01-01T00:00:01.000Z']);
  });
});

describe('and trigger: pairing starts afresh at every whole UTC hour', () => {
  it('lets a coincidence straddling the hour give way to the first one of the new hour', () => {
    const trigger = {
      type: 'and',
      threshold_seconds: 1,
      triggers: [every(2, '2026-01-01T00:00:01Z'), every(2, '2026-01-01T00:00:02Z')],
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:59:56Z', 4)).toEqual([
      '2026-01-01T00:59:57.000Z',
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T01:00:02.000Z',
      '2026-01-01T01:00:04.000Z',
    ]);
  });

  it('keeps a coincidence straddling the hour when the new hour’s first one does not share its fire times', () => {
    const trigger = {
      type: 'and',
      threshold_seconds: 2,
      triggers: [every(60, '2026-01-01T00:00:59Z'), every(60, '2026-01-01T00:00:00Z')],
    };
    expect(utcFireTimes(trigger, '2026-01-01T00:58:30Z', 3)).toEqual([
      '2026-01-01T00:58:59.000Z',
      '2026-01-01T00:59:59.000Z',
      '2026-01-01T01:00:59.000Z',
    ]);
  });
});
