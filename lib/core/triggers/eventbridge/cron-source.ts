import type { EpochMs } from '../../clock';
import { ceilToSecond } from '../calendar';
import type { FireTimeSource } from '../fire-time-source';
import { firstInstantShowing, gapAround, type ZoneRules } from '../zones';
import type { EventBridgeCron } from './cron-fields';
import { nextEventBridgeWallTime } from './cron-search';

/**
 * The fire times of an EventBridge cron in a zone, with EventBridge Scheduler's documented DST
 * behaviour (not Sundial's, see docs/triggers.md): a matching wall time that does not exist (in a
 * spring-forward gap) is skipped, and one that exists twice (in a fall-back overlap) fires once, at
 * its first occurrence, whatever the hour field says.
 *
 * @example
 * // cron(30 2 * * ? *) in New York: 02:30 does not exist on 2026-03-08, so that day has no fire.
 */
export function eventBridgeCronFireTimes(cron: EventBridgeCron, zone: ZoneRules): FireTimeSource {
  return {
    next(fromInclusive) {
      let wallTime = lowestUnseenWallTime(zone, ceilToSecond(fromInclusive));
      for (;;) {
        const match = nextEventBridgeWallTime(cron, wallTime);
        if (match === undefined) return undefined;
        const instant = firstInstantShowing(zone, match);
        if (instant !== undefined) return instant;
        const gap = gapAround(zone, match);
        // Matches inside the gap never happen: go on from the first wall time after it.
        wallTime = Math.max(match + 1, gap.instant + gap.offsetAfter);
      }
    },
  };
}

/** The lowest wall time clocks have not shown before `instant`: after a fall back, the old clock's last reading. */
function lowestUnseenWallTime(zone: ZoneRules, instant: EpochMs): number {
  const wallTime = instant + zone.offsetAt(instant);
  const previous = zone.transitionAtOrBefore(instant);
  if (previous === undefined || previous.offsetBefore <= previous.offsetAfter) return wallTime;
  return Math.max(wallTime, previous.instant + previous.offsetBefore);
}
