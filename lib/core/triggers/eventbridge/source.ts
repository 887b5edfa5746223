import type { EpochMs } from '../../clock';
import { type FireTimeSource, withinWindow } from '../fire-time-source';
import { intervalFireTimes } from '../interval-source';
import { resolveWallTime, type ZoneRules } from '../zones';
import { eventBridgeCronFireTimes } from './cron-source';
import type { EventBridgeExpression } from './expression';

/**
 * The fire times of an `eventbridge` trigger: `cron(…)` with EventBridge's DST behaviour,
 * `rate(…)` every period from `startAt` (elapsed time, as EventBridge: `rate(1 day)` is 24 hours),
 * `at(…)` once at its local date-time in the zone (in a gap, at the first instant after it).
 */
export function eventBridgeFireTimes(
  expression: EventBridgeExpression,
  zone: ZoneRules,
  startAt: EpochMs | undefined,
  endAt: EpochMs | undefined,
): FireTimeSource {
  switch (expression.kind) {
    case 'cron':
      return withinWindow(eventBridgeCronFireTimes(expression.cron, zone), startAt, endAt);
    case 'rate':
      return withinWindow(intervalFireTimes(startAt ?? 0, expression.periodMs), startAt, endAt);
    case 'at': {
      const runAt = resolveWallTime(zone, expression.wallTime);
      return { next: (fromInclusive) => (runAt >= fromInclusive ? runAt : undefined) };
    }
  }
}
