import type { Clock } from '../../core/clock';
import { relativeTime } from '../../core/format/durations';
import { timeInZone } from '../../core/format/time-in-zone';

/**
 * An instant as wall-clock time in `zone`, with the zone's abbreviation (or offset) and how far it
 * is from now: `Mon 2026-03-02 10:00:00 CET (in 42 s)`. `-` for null.
 *
 * @example
 * localWithRelative('2026-03-02T09:00:42Z', 'Europe/Berlin', new ManualClock(Date.parse('2026-03-02T09:00:00Z')));
 * // 'Mon 2026-03-02 10:00:42 CET (in 42 s)'
 */
export function localWithRelative(iso: string | null, zone: string, clock: Clock): string {
  if (iso === null) return '-';
  const instant = Date.parse(iso);
  return `${timeInZone(instant, zone)} (${relativeTime(instant, clock.now())})`;
}
