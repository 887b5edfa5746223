import type { EpochMs } from '../../clock';
import { ceilToSecond, MS_PER_DAY } from '../calendar';
import type { FireTimeSource } from '../fire-time-source';
import type { ZoneRules } from '../zones';
import type { CronSchedule } from './cron-expression';
import { nextMatchingWallTime } from './cron-wall-search';

/** Each round either answers or moves past an offset change or a day; 100 rounds is far beyond any real zone. */
const MAX_ROUNDS = 100;

/**
 * The fire times of a cron schedule in a zone, with Sundial's DST policy (docs/triggers.md):
 * - a schedule whose hour field is `*` follows real time: in a gap the wall times that do not exist
 *   simply do not occur (an hourly job stays 60 minutes apart), and in an overlap it fires at both
 *   occurrences of a matching wall time (every real hour);
 * - any other schedule fires once per matching wall time: inside a gap at the first instant after
 *   it (wall times that collapse onto that instant fire once), in an overlap at the first occurrence.
 *
 * The search walks periods of constant UTC offset: inside one, wall time and instant differ by a
 * constant, so the next matching wall time gives the next fire directly. Far-away matches are
 * reached by jumping, never by stepping through every day.
 *
 * @example
 * const parsed = parseCronExpression('30 2 * * *');
 * if (parsed.ok) cronFireTimes(parsed.value, zoneRules('America/New_York')).next(Date.parse('2026-03-08T00:00:00Z'));
 * // 2026-03-08T07:00:00Z: 02:30 does not exist that day, so the job runs at 03:00 EDT
 */
export function cronFireTimes(schedule: CronSchedule, zone: ZoneRules): FireTimeSource {
  return { next: (fromInclusive) => nextCronFire(schedule, zone, fromInclusive) };
}

function nextCronFire(schedule: CronSchedule, zone: ZoneRules, fromInclusive: EpochMs): EpochMs | undefined {
  let instant = ceilToSecond(fromInclusive);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const offset = zone.offsetAt(instant);
    let lowestWallTime = instant + offset;
    const previous = zone.transitionAtOrBefore(instant);
    if (previous !== undefined) {
      const gapEndsNow = previous.instant === instant && previous.offsetAfter > previous.offsetBefore;
      if (
        gapEndsNow &&
        !schedule.hourIsWildcard &&
        matchesBefore(schedule, instant + previous.offsetBefore, instant + previous.offsetAfter)
      ) {
        return instant;
      }
      // Fall back: wall times up to the old clock's reading already occurred once.
      if (!schedule.hourIsWildcard && previous.offsetBefore > previous.offsetAfter) {
        lowestWallTime = Math.max(lowestWallTime, previous.instant + previous.offsetBefore);
      }
    }
    const wallTime = nextMatchingWallTime(schedule, lowestWallTime);
    if (wallTime === undefined) return undefined;
    const candidate = wallTime - offset;
    if (zone.isFixed) return candidate;
    const upcoming = zone.transitionAfter(instant);
    if (upcoming !== undefined) {
      if (candidate < upcoming.instant) return candidate;
      instant = upcoming.instant;
    } else if (candidate <= instant + MS_PER_DAY) {
      return candidate;
    } else {
      // No offset change within a day; the match is further out. Jump close to it (offsets differ
      // by less than a day, so no fire lies between here and two days before the candidate).
      instant = Math.max(instant + MS_PER_DAY, candidate - 2 * MS_PER_DAY);
    }
  }
  throw new Error(`cron search did not settle after ${MAX_ROUNDS} rounds in zone ${zone.name}`);
}

/** True when a wall time in `[from, before)` matches: used for the wall times a DST gap skips. */
function matchesBefore(schedule: CronSchedule, from: number, before: number): boolean {
  const match = nextMatchingWallTime(schedule, from);
  return match !== undefined && match < before;
}
