import { CronExpressionParser } from 'cron-parser';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { cronExpressionArb } from './arbitraries';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** 2026 offset changes (UTC instants), gaps and overlaps, 30-minute and midnight ones included. */
const TRANSITIONS: readonly [zone: string, instant: string][] = [
  ['America/New_York', '2026-03-08T07:00:00Z'],
  ['America/New_York', '2026-11-01T06:00:00Z'],
  ['Europe/Berlin', '2026-03-29T01:00:00Z'],
  ['Europe/Berlin', '2026-10-25T01:00:00Z'],
  ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
  ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
  ['America/Santiago', '2026-04-05T03:00:00Z'],
  ['America/Santiago', '2026-09-06T04:00:00Z'],
];

/**
 * The DST policy (docs/triggers.md) written out naively, minute by minute, with luxon for the zone and cron-parser
 * (in UTC, on wall-clock readings) for matching: an independent reference for the cron source.
 * Within the window the zone's only offset change is `transition`, on a whole UTC minute.
 */
function referenceFires(
  expression: string,
  zone: string,
  transition: EpochMs,
  from: EpochMs,
  until: EpochMs,
): EpochMs[] {
  const utcExpression = CronExpressionParser.parse(expression, { tz: 'UTC' });
  const wallMatches = (wallTime: number) => utcExpression.includesDate(new Date(wallTime));
  const hourIsWildcard = expression.split(' ')[1] === '*';
  const offsetBefore = DateTime.fromMillis(transition - 1, { zone }).offset * MINUTE;
  const offsetAfter = DateTime.fromMillis(transition, { zone }).offset * MINUTE;
  const offsetAt = (instant: EpochMs) => (instant < transition ? offsetBefore : offsetAfter);
  const fires: EpochMs[] = [];
  for (let instant = from; instant <= until; instant += MINUTE) {
    const offset = offsetAt(instant);
    let skippedMatch = false;
    for (
      let wallTime = instant + offsetAt(instant - MINUTE);
      wallTime < instant + offset;
      wallTime += MINUTE
    ) {
      skippedMatch ||= !hourIsWildcard && wallMatches(wallTime);
    }
    const repeatsEarlierWallTime = [30, 60, 120].some(
      (minutes) => offsetAt(instant - minutes * MINUTE) - offset === minutes * MINUTE,
    );
    const matches = (hourIsWildcard || !repeatsEarlierWallTime) && wallMatches(instant + offset);
    if (skippedMatch || matches) fires.push(instant);
  }
  return fires;
}

describe('cron trigger around DST changes (property)', () => {
  it('fires exactly where the naive minute-by-minute reading of the DST policy says', () => {
    fc.assert(
      fc.property(cronExpressionArb, fc.constantFrom(...TRANSITIONS), (expression, [zone, transition]) => {
        const from = Date.parse(transition) - 2 * HOUR;
        const until = Date.parse(transition) + 2 * HOUR;
        const source = compileTrigger(parseTrigger({ type: 'cron', expression, timezone: zone }));
        const fires: EpochMs[] = [];
        for (
          let fire = source.next(from);
          fire !== undefined && fire <= until;
          fire = source.next(fire + 1)
        ) {
          fires.push(fire);
        }
        expect(fires.map((fire) => new Date(fire).toISOString())).toEqual(
          referenceFires(expression, zone, Date.parse(transition), from, until).map((fire) =>
            new Date(fire).toISOString(),
          ),
        );
      }),
      { numRuns: 100 },
    );
  });
});
