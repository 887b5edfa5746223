import type { EpochMs } from '../clock';

/**
 * Wall-clock times in a time zone, from the platform's `Intl` (the same data in Node and in the
 * browser, so the CLI and the dashboard show the same text).
 */

/** English locales whose short zone names differ: en-US knows EDT, en-GB CEST and BST, en-AU AEST, en-IN IST. */
const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ'];

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsOf(instant: EpochMs, locale: string, options: Intl.DateTimeFormatOptions) {
  const key = `${locale} ${JSON.stringify(options)}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, formatter);
  }
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatter.formatToParts(instant)) parts[part.type] = part.value;
  return parts;
}

/**
 * The zone's short name at `instant` (`EDT`, `CEST`), or undefined where the locale data only has a
 * `GMT+9` style name.
 */
export function zoneAbbreviation(instant: EpochMs, zone: string): string | undefined {
  for (const locale of ABBREVIATION_LOCALES) {
    const name = partsOf(instant, locale, { timeZone: zone, timeZoneName: 'short' }).timeZoneName ?? '';
    if (name !== '' && !/^(GMT|UTC)[+-]/.test(name)) return name;
  }
  return undefined;
}

/** The zone's offset from UTC at `instant`: `+09:00`, `-03:00`, `+00:00`. */
export function zoneOffset(instant: EpochMs, zone: string): string {
  const name = partsOf(instant, 'en-US', { timeZone: zone, timeZoneName: 'longOffset' }).timeZoneName ?? '';
  const offset = name.replace(/^GMT/, '');
  return offset === '' ? '+00:00' : offset;
}

/**
 * An instant as wall-clock time in `zone` with the zone's abbreviation, or its offset where none is
 * known; milliseconds only when there are any.
 *
 * @example
 * timeInZone(Date.parse('2026-03-02T09:00:42Z'), 'Europe/Berlin'); // 'Mon 2026-03-02 10:00:42 CET'
 * timeInZone(Date.parse('2026-03-02T09:00:00Z'), 'Asia/Tokyo');    // 'Mon 2026-03-02 18:00:00 +09:00'
 */
export function timeInZone(instant: EpochMs, zone: string): string {
  const parts = partsOf(instant, 'en-US', {
    timeZone: zone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const millis = instant % 1000 === 0 ? '' : `.${String(((instant % 1000) + 1000) % 1000).padStart(3, '0')}`;
  const name = zoneAbbreviation(instant, zone) ?? zoneOffset(instant, zone);
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}${millis} ${name}`;
}

/** The time of day in `zone`, to the second (`10:00:42`): for compact lists beside the zone's name. */
export function clockTime(instant: EpochMs, zone: string): string {
  const parts = partsOf(instant, 'en-US', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return `${parts.hour}:${parts.minute}:${parts.second}`;
}
