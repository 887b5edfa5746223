/**
 * What differs between two runs of a page's examples, and only that, masked so the rest compares
 * exactly: instants of the run (near the platform clock's start on any day — a result kept 7 days
 * expires a whole number of days later), seconds relative to now, durations of real runs, generated
 * ids (UUIDs, `<schedule>@<fire time>`) and cursors. Instants far from the start (a cron's next fire
 * tomorrow, a preview of March) are compared as they are. Nothing shown may come from the real clock
 * (the page was written on another day than it runs): an example of a handler that reads it passes the
 * instant in its payload.
 */

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** The run's own instants: from a little before the clock's start to its fires dispatched ahead. */
const BEFORE_ANCHOR_MS = 2 * MINUTE_MS;
const AFTER_ANCHOR_MS = 20 * MINUTE_MS;

/** Offsets of the zone abbreviations the pages show (a time in another zone is compared as it is). */
const ZONE_OFFSET_MINUTES: Readonly<Record<string, number>> = {
  UTC: 0,
  GMT: 0,
  Z: 0,
  CET: 60,
  CEST: 120,
  EST: -300,
  EDT: -240,
  IST: 330,
};

const ISO = /\b(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]\d\d:\d\d)/g;
const SHOWN =
  /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d{3})?) ([A-Z]{1,5}|[+-]\d\d:\d\d)\b/g;
const FIRE_ID = /@(\d{13})\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const CURSOR = /(--cursor |"cursor": ?")([A-Za-z0-9_-]{16,})/g;
/** The generated values a later command of the page may name: learned from one run's output for the next. */
const GENERATED =
  /[A-Za-z0-9._:-]*@\d{13}\b|[A-Za-z0-9._:-]*@run-[0-9a-f-]{36}|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|(?<=--cursor )[A-Za-z0-9_-]{16,}/g;

export interface VolatileMask {
  /** `text` with its volatile parts masked, and runs of spaces (table padding) made one width. */
  text(text: string): string;
  /** A JSON value with its volatile parts masked (strings as `text`; `duration_seconds`, cursors and stacks). */
  json(value: unknown): unknown;
  /** The generated values of `text` in order: ids and cursors that later commands may use. */
  generated(text: string): string[];
}

/** @param anchor the platform clock's start (epoch ms): the run's instants lie just after it. */
export function volatileMask(anchor: number): VolatileMask {
  const isVolatile = (instant: number) => {
    const sinceAnchor = (((instant - anchor) % DAY_MS) + DAY_MS) % DAY_MS;
    return sinceAnchor <= AFTER_ANCHOR_MS || sinceAnchor >= DAY_MS - BEFORE_ANCHOR_MS;
  };
  const at = (date: string, time: string, zone: string): number | undefined => {
    const offset = /^[+-]\d\d:\d\d$/.test(zone)
      ? (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)))
      : ZONE_OFFSET_MINUTES[zone];
    if (offset === undefined) return undefined;
    return Date.parse(`${date}T${time}Z`) - offset * MINUTE_MS;
  };
  const masked = (date: string, time: string, zone: string, mask: string, whole: string) => {
    const instant = at(date, time, zone);
    return instant !== undefined && isVolatile(instant) ? mask : whole;
  };
  const text = (input: string) =>
    input
      .replace(UUID, '<uuid>')
      .replace(CURSOR, '$1<cursor>')
      .replace(ISO, (whole, date: string, time: string, zone: string) =>
        masked(date, time, zone, '<instant>', whole),
      )
      .replace(SHOWN, (whole, date: string, time: string, zone: string) =>
        masked(date, time, zone, `<time> ${zone}`, whole),
      )
      .replace(FIRE_ID, (whole, epoch: string) => (isVolatile(Number(epoch)) ? '@<fire time>' : whole))
      .replace(/\((?:in \d+ s|\d+ s ago|now)\)/g, '(<seconds>)')
      .replace(/\b\d+ ms\b/g, '<n> ms')
      .replace(/\b\d+\.\d+ s\b/g, '<n> s')
      .replace(/\bdurationMs=\d+/g, 'durationMs=<n>')
      .replace(/^\d\d:\d\d:\d\d (?=(?:debug|info|warn|error) )/gm, '<hh:mm:ss> ')
      .replace(/ {2,}/g, '  ')
      .replace(/ +$/gm, '');
  const json = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string' && (key === 'cursor' || key === 'stack')) return `<${key}>`;
    if (typeof value === 'string') return text(value);
    if (typeof value === 'number' && key === 'duration_seconds') return '<duration>';
    if (Array.isArray(value)) return value.map((item) => json(item));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, json(item, name)]));
    }
    return value;
  };
  return { text, json: (value) => json(value), generated: (input) => input.match(GENERATED) ?? [] };
}
