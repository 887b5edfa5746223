import { DateTime } from 'luxon';
import type { EpochMs } from './clock';

/**
 * Instants as text, as the admin API writes them: ISO-8601 with `Z` or the zone's offset,
 * milliseconds only when there are any.
 *
 * @example
 * isoUtc(Date.parse('2026-03-29T09:00:00Z')); // '2026-03-29T09:00:00Z'
 */
export function isoUtc(instant: EpochMs): string {
  return DateTime.fromMillis(instant, { zone: 'utc' }).toISO({ suppressMilliseconds: true }) ?? '';
}

/**
 * The same instant as wall-clock time in `zone`, with its offset.
 *
 * @example
 * isoInZone(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York'); // '2026-03-08T03:00:00-04:00'
 */
export function isoInZone(instant: EpochMs, zone: string): string {
  return DateTime.fromMillis(instant, { zone }).toISO({ suppressMilliseconds: true }) ?? isoUtc(instant);
}
