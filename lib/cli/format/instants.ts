import { DateTime } from 'luxon';
import type { Clock, EpochMs } from '../../core/clock';
import { zoneAbbreviation } from './fire-times';
import { relativeTime } from './relative-time';

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
  return `${localTime(instant, zone)} (${relativeTime(instant, clock.now())})`;
}

/** `Mon 2026-03-02 10:00:42 CET`; milliseconds only when there are any; the numeric offset where no abbreviation is known. */
export function localTime(instant: EpochMs, zone: string): string {
  const format = instant % 1_000 === 0 ? 'ccc yyyy-MM-dd HH:mm:ss' : 'ccc yyyy-MM-dd HH:mm:ss.SSS';
  const local = DateTime.fromMillis(instant, { zone }).setLocale('en-US');
  const name = zoneAbbreviation(instant, zone) ?? local.toFormat('ZZ');
  return `${local.toFormat(format)} ${name}`;
}
