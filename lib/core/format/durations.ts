import type { EpochMs } from '../clock';

/**
 * Times and durations in words, the same in the CLI and the dashboard (which runs this in the
 * browser: nothing here may use Node or luxon).
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How far `instant` is from `now`, the way people say it: `in 42 s`, `3 min ago`, `in 5 h`,
 * `2 d ago`; `now` within half a second. Rounds to the nearest unit; switches unit at 60 s,
 * 60 min and 48 h so the number stays meaningful.
 *
 * @example
 * relativeTime(Date.parse('2026-03-02T09:00:42Z'), Date.parse('2026-03-02T09:00:00Z')); // 'in 42 s'
 */
export function relativeTime(instant: EpochMs, now: EpochMs): string {
  const delta = instant - now;
  const distance = Math.abs(delta);
  if (distance < SECOND / 2) return 'now';
  const amount = amountOf(distance);
  return delta > 0 ? `in ${amount}` : `${amount} ago`;
}

function amountOf(distance: number): string {
  if (distance < MINUTE - SECOND / 2) return `${Math.round(distance / SECOND)} s`;
  if (distance < HOUR - MINUTE / 2) return `${Math.round(distance / MINUTE)} min`;
  if (distance < 48 * HOUR) return `${Math.round(distance / HOUR)} h`;
  return `${Math.round(distance / DAY)} d`;
}

/** A duration in seconds, compactly: `850 ms`, `2.5 s`, `3 min 20 s`, `2 h 5 min`. */
export function compactDuration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A period in its largest whole unit: `7 d`, `1 h`, `90 min`, `45 s` (result TTLs, timeouts). */
export function wholeDuration(seconds: number): string {
  if (seconds > 0 && seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds > 0 && seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
