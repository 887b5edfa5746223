import { IANAZone } from 'luxon';
import type { EpochMs } from '../clock';
import { MS_PER_DAY, MS_PER_MINUTE, MS_PER_SECOND } from './calendar';

/** An offset change: from `instant` on, wall clocks read `instant + offsetAfter`. */
export interface OffsetTransition {
  instant: EpochMs;
  offsetBefore: number;
  offsetAfter: number;
}

/**
 * The offset rules of one IANA time zone, read through luxon (which asks `Intl`).
 *
 * Transitions are found by probing offsets, assuming a zone changes its offset at most once per
 * UTC day: true of every zone since 1900 except a few wartime oddities.
 */
export interface ZoneRules {
  readonly name: string;
  /** True when the offset never changes (UTC): callers can skip every DST consideration. */
  readonly isFixed: boolean;
  /** Local time minus UTC at `instant`, in ms. */
  offsetAt(instant: EpochMs): number;
  /** The first offset change in `(after, after + 1 day]`, if any. */
  transitionAfter(after: EpochMs): OffsetTransition | undefined;
  /** The last offset change in `(atOrBefore - 1 day, atOrBefore]`, if any. */
  transitionAtOrBefore(atOrBefore: EpochMs): OffsetTransition | undefined;
}

const UTC_NAMES = new Set([
  'utc',
  'etc/utc',
  'etc/uct',
  'uct',
  'etc/gmt',
  'gmt',
  'etc/universal',
  'universal',
  'etc/zulu',
  'zulu',
]);
const FIXED_UTC = {
  isFixed: true,
  offsetAt: () => 0,
  transitionAfter: () => undefined,
  transitionAtOrBefore: () => undefined,
};
const rulesByName = new Map<string, ZoneRules>();

/**
 * True for a zone name the runtime's time zone database knows (`Europe/Berlin`, `UTC`).
 *
 * @example
 * isKnownTimeZone('Europe/Berlin'); // true
 * isKnownTimeZone('Europe/Berlim'); // false
 */
export function isKnownTimeZone(name: string): boolean {
  return name.length > 0 && IANAZone.isValidZone(name);
}

/**
 * The (shared, cached) rules of a known zone. Throws on an unknown name: check with {@link isKnownTimeZone}.
 *
 * @example
 * zoneRules('Asia/Tokyo').offsetAt(0); // 32400000
 */
export function zoneRules(name: string): ZoneRules {
  let rules = rulesByName.get(name);
  if (!rules) {
    if (!isKnownTimeZone(name)) throw new Error(`unknown time zone '${name}'`);
    rules = UTC_NAMES.has(name.toLowerCase()) ? { name, ...FIXED_UTC } : new IanaZoneRules(name);
    rulesByName.set(name, rules);
  }
  return rules;
}

/** One UTC day of a zone: the offset in force as it starts, and the change during it, if any. */
interface ZoneDay {
  offsetBefore: number;
  transition: OffsetTransition | undefined;
}

/** Caching past this many days (~27 years of daily lookups) starts over, bounding memory. */
const MAX_CACHED_DAYS = 10_000;

/**
 * Asking `Intl` for an offset costs microseconds, and `next()` asks several times per call, so
 * each UTC day is probed once (its offset at both ends, and the change between them found by
 * bisection) and remembered.
 */
class IanaZoneRules implements ZoneRules {
  readonly isFixed = false;
  private readonly zone: IANAZone;
  private readonly days = new Map<number, ZoneDay>();

  constructor(readonly name: string) {
    this.zone = IANAZone.create(name);
  }

  offsetAt(instant: EpochMs): number {
    const day = this.day(Math.floor(instant / MS_PER_DAY));
    return day.transition && instant >= day.transition.instant
      ? day.transition.offsetAfter
      : day.offsetBefore;
  }

  transitionAfter(after: EpochMs): OffsetTransition | undefined {
    const dayIndex = Math.floor(after / MS_PER_DAY);
    const today = this.day(dayIndex).transition;
    if (today && today.instant > after) return today;
    const tomorrow = this.day(dayIndex + 1).transition;
    return tomorrow && tomorrow.instant <= after + MS_PER_DAY ? tomorrow : undefined;
  }

  transitionAtOrBefore(atOrBefore: EpochMs): OffsetTransition | undefined {
    const dayIndex = Math.floor(atOrBefore / MS_PER_DAY);
    const today = this.day(dayIndex).transition;
    if (today && today.instant <= atOrBefore) return today;
    const yesterday = this.day(dayIndex - 1).transition;
    return yesterday && yesterday.instant > atOrBefore - MS_PER_DAY ? yesterday : undefined;
  }

  private day(dayIndex: number): ZoneDay {
    let day = this.days.get(dayIndex);
    if (!day) {
      if (this.days.size >= MAX_CACHED_DAYS) this.days.clear();
      day = this.probeDay(dayIndex);
      this.days.set(dayIndex, day);
    }
    return day;
  }

  private probeDay(dayIndex: number): ZoneDay {
    const start = dayIndex * MS_PER_DAY;
    const offsetBefore = this.probe(start - MS_PER_SECOND);
    const offsetAtEnd = this.probe(start + MS_PER_DAY - MS_PER_SECOND);
    if (offsetBefore === offsetAtEnd) return { offsetBefore, transition: undefined };
    const transition = (instant: EpochMs) => ({
      offsetBefore,
      transition: { instant, offsetBefore, offsetAfter: offsetAtEnd },
    });
    if (this.probe(start) !== offsetBefore) return transition(start);
    // Bisect, in whole seconds, for the first instant whose offset is no longer `offsetBefore`.
    let low = start / MS_PER_SECOND;
    let high = (start + MS_PER_DAY) / MS_PER_SECOND - 1;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (this.probe(middle * MS_PER_SECOND) === offsetBefore) low = middle;
      else high = middle;
    }
    return transition(high * MS_PER_SECOND);
  }

  /** Pre-1900 local mean time offsets have seconds: round luxon's minutes to whole ms. */
  private probe(instant: EpochMs): number {
    return Math.round(this.zone.offset(instant) * MS_PER_MINUTE);
  }
}

/** The wall time (see `calendar.ts`) that clocks in the zone show at `instant`. */
export function wallTimeAt(zone: ZoneRules, instant: EpochMs): number {
  return instant + zone.offsetAt(instant);
}

/**
 * The instant a zone's clocks show `wallTime` at, by Sundial's DST policy: in a gap (the time
 * does not exist) the first instant after the gap; in an overlap (it exists twice) the first.
 *
 * @example
 * // 02:30 does not exist in New York on 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT.
 * resolveWallTime(zoneRules('America/New_York'), Date.UTC(2026, 2, 8, 2, 30)); // 2026-03-08T07:00:00Z
 */
export function resolveWallTime(zone: ZoneRules, wallTime: number): EpochMs {
  return firstInstantShowing(zone, wallTime) ?? gapAround(zone, wallTime).instant;
}

/**
 * The first instant a zone's clocks show `wallTime` at (the earlier one in an overlap); undefined
 * when they never do (in a gap).
 *
 * @example
 * firstInstantShowing(zoneRules('America/New_York'), Date.UTC(2026, 2, 8, 2, 30)); // undefined
 */
export function firstInstantShowing(zone: ZoneRules, wallTime: number): EpochMs | undefined {
  if (zone.isFixed) return wallTime - zone.offsetAt(wallTime);
  const earlierOffset = zone.offsetAt(wallTime - MS_PER_DAY);
  const laterOffset = zone.offsetAt(wallTime + MS_PER_DAY);
  const withEarlier = wallTime - earlierOffset;
  const withLater = wallTime - laterOffset;
  const earlierValid = zone.offsetAt(withEarlier) === earlierOffset;
  const laterValid = zone.offsetAt(withLater) === laterOffset;
  if (earlierValid && laterValid) return Math.min(withEarlier, withLater);
  if (earlierValid) return withEarlier;
  if (laterValid) return withLater;
  return undefined;
}

/**
 * The offset change whose gap swallows `wallTime` (call only when {@link firstInstantShowing}
 * found none): the clocks jumped over it between the two readings of it.
 */
export function gapAround(zone: ZoneRules, wallTime: number): OffsetTransition {
  const withLater = wallTime - zone.offsetAt(wallTime + MS_PER_DAY);
  const offset = zone.offsetAt(wallTime - MS_PER_DAY);
  return (
    zone.transitionAfter(withLater) ?? {
      instant: wallTime - offset,
      offsetBefore: offset,
      offsetAfter: offset,
    }
  );
}
